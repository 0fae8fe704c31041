// report.json: one function per part of the Report, mirroring docs/report-schema.md.
#include "report/report_json.h"

#include <algorithm>
#include <sstream>
#include <utility>

#include "report/held_by_json.h"
#include "report/holder_links.h"
#include "report/json_stream.h"
#include "report/levels.h"
#include "report/tally_json.h"
#include "symbols/symbols.h"

namespace memfloor::report {
namespace {

using nlohmann::json;

json toJson(const Tally& t) { return tallyJson(t); }

template <typename T>
json arrayOf(const std::vector<T>& items);

json toJson(const TallyStep& t) { return {{"bytes", t.bytes}, {"count", t.count}}; }

// A retained object: the total, then one tally per class; of bytes (RetainedTally) or of a trend's
// steps (RetainedStep). `blocks`: the run has allocator blocks. Only then can bytes be cached (a
// reserved level's), and only then is the class written.
template <typename Retained, typename Total>
json retainedJson(const Retained& r, const Total& total, bool blocks) {
  json j = {{"bytes", total.bytes},
            {"count", total.count},
            {"inter_iteration", toJson(r.inter_iteration)},
            {"leak", toJson(r.leak)},
            {"persistent", toJson(r.persistent)}};
  if (blocks) j["cached"] = toJson(r.cached);
  return j;
}

json toJson(const RetainedTally& r, bool blocks) { return retainedJson(r, r.total(), blocks); }

// A step's total: exact when it fits an i64 (conversions to a signed type wrap).
json toJson(const RetainedStep& r, bool blocks) {
  auto sum = [&r](int64_t TallyStep::*part) {
    return static_cast<int64_t>(
        static_cast<uint64_t>(r.inter_iteration.*part) + static_cast<uint64_t>(r.leak.*part) +
        static_cast<uint64_t>(r.persistent.*part) + static_cast<uint64_t>(r.cached.*part));
  };
  return retainedJson(r, TallyStep{sum(&TallyStep::bytes), sum(&TallyStep::count)}, blocks);
}

// A peak's bytes: the total, then one tally per class (docs/report-schema.md, "peak").
json toJson(const PeakTally& p, bool blocks) {
  Tally total = p.total();
  json j = {{"bytes", total.bytes},
            {"count", total.count},
            {"iteration", toJson(p.iteration)},
            {"earlier_iteration", toJson(p.earlier_iteration)},
            {"inter_iteration", toJson(p.inter_iteration)},
            {"leak", toJson(p.leak)},
            {"persistent", toJson(p.persistent)}};
  if (blocks) j["cached"] = toJson(p.cached);
  return j;
}

json peakJson(const std::optional<PeakSnapshot>& p, bool blocks) {
  if (!p) return nullptr;
  json sites = json::array();
  for (const PeakSite& s : p->sites) {
    json site = toJson(s.live, blocks);
    site["stack"] = s.stack;
    site["where"] = s.where;
    site["class"] = toString(s.live.dominant());
    sites.push_back(std::move(site));
  }
  json modules = json::array();
  for (const PeakModule& m : p->modules) {
    modules.push_back({{"module", m.module}, {"bytes", m.live.bytes}, {"count", m.live.count}});
  }
  json j = toJson(p->live, blocks);
  j["at_ns"] = p->at_ns;
  j["sites"] = std::move(sites);
  if (!modules.empty()) j["modules"] = std::move(modules);  // only where allocations carry them
  return j;
}

void putKey(json& j, const MemoryKey& key) {
  j["device"] = key.device;
  j["kind"] = trace::toString(key.kind);  // the trace text form's names
}

json toJson(const TraceInput& in, const Report& r) {
  return {{"path", in.path},
          {"version", {{"major", in.major}, {"minor", in.minor}}},
          {"ending", in.ending},
          {"complete", in.complete},
          {"first_ns", r.first_ns},
          {"end_ns", r.end_ns},
          {"records",
           {{"total", r.records.total},
            {"allocs", r.records.allocs},
            {"frees", r.records.frees},
            {"markers", r.records.markers},
            {"pool_events", r.records.pool_events},
            {"steps", r.records.steps}}}};
}

json toJson(const ProcessMeta& p) {
  json devices = json::array();
  for (const DeviceMeta& d : p.devices) {
    devices.push_back({{"device", d.device}, {"name", d.name}, {"total_memory", d.total_memory}});
  }
  return {{"present", p.present},
          {"pid", p.pid},
          {"start_unix_ns", p.start_unix_ns},
          {"host", p.host},
          {"command_line", p.command_line},
          {"rank", p.rank},
          {"local_rank", p.local_rank},
          {"world_size", p.world_size},
          {"devices", devices},
          {"properties", p.properties}};
}

// `blocks_outside_segments` only in runs with allocator blocks: the others cannot have any.
json toJson(const Anomalies& a, bool blocks) {
  json j = {{"unmatched_frees", toJson(a.unmatched_frees)},
            {"double_allocations", toJson(a.double_allocations)},
            {"size_mismatches", a.size_mismatches},
            {"unmatched_range_ends", a.unmatched_range_ends},
            {"unclosed_ranges", a.unclosed_ranges},
            {"out_of_order_records", a.out_of_order_records},
            {"cut_tail", a.cut_tail.known
                             ? json{{"from_ns", a.cut_tail.from_ns},
                                    {"unmatched_frees", toJson(a.cut_tail.unmatched_frees)},
                                    {"double_allocations", toJson(a.cut_tail.double_allocations)}}
                             : json(nullptr)}};
  if (blocks) j["blocks_outside_segments"] = a.blocks_outside_segments;
  j["warnings"] = a.warnings;
  j["warnings_left_out"] = a.warnings_left_out;
  return j;
}

json toJson(const MemorySummary& m) {
  json j;
  putKey(j, m.key);
  j["peak"] = m.peak;
  j["peak_ns"] = m.peak_ns;
  j["live_at_end"] = m.live_at_end;
  j["allocated"] = toJson(m.allocated);
  j["freed"] = toJson(m.freed);
  return j;
}

json toJson(const IterationMemory& m, bool blocks) {
  json j;
  putKey(j, m.key);
  j["live_at_start"] = m.live_at_start;
  j["live_at_end"] = m.live_at_end;
  j["peak"] = m.peak;
  j["floor"] = m.floor;
  j["allocated"] = toJson(m.allocated);
  j["freed"] = toJson(m.freed);
  j["peak_composition"] = peakJson(m.peak_composition, blocks);
  j["idle"] = {{"floor", m.idle.floor},
               {"peak", m.idle.peak},
               {"live_at_end", m.idle.live_at_end},
               {"allocated", toJson(m.idle.allocated)},
               {"freed", toJson(m.idle.freed)},
               {"retained", toJson(m.idle.retained, blocks)},
               {"explained", toJson(m.idle.explained)},
               {"unexplained", toJson(unexplained(m.idle))}};
  return j;
}

json detectionJson(const std::optional<DetectedPeriod>& d) {
  if (!d) return nullptr;
  json j = {{"stack", d->stack},
            {"where", d->where},
            {"size", d->size},
            {"every", d->every},
            {"occurrences", d->occurrences},
            {"period_ns", d->period_ns},
            {"regular_permille", d->regular_permille}};
  putKey(j, d->key);
  return j;
}

// Finding ids by index into AnalysisOptions::links.
using FindingIds = std::vector<std::string>;

json toJson(const RetainedSite& s, const FindingIds& ids, bool blocks) {
  json j = toJson(s.retained, blocks);
  putKey(j, s.key);
  j["stack"] = s.stack;
  j["where"] = s.where;
  j["class"] = toString(s.retained.dominant());
  json findings = json::array();
  for (uint32_t f : s.findings) {
    if (f < ids.size()) findings.push_back(ids[f]);
  }
  j["findings"] = std::move(findings);
  return j;
}

json toJson(const IterationRow& row, const FindingIds& ids, bool blocks) {
  json memory = json::array(), sites = json::array();
  for (const IterationMemory& m : row.memory) memory.push_back(toJson(m, blocks));
  for (const RetainedSite& s : row.top_sites) sites.push_back(toJson(s, ids, blocks));
  return {
      {"index", row.index},
      {"name", row.name},
      {"start_ns", row.start_ns},
      {"end_ns", row.end_ns},
      {"complete", row.complete},
      {"warmup", row.warmup},
      {"idle",
       {{"start_ns", row.idle_start_ns}, {"end_ns", row.idle_end_ns}, {"final", row.idle_final}}},
      {"memory", std::move(memory)},  // moved, not copied: an initializer list copies lvalues
      {"top_sites", std::move(sites)},
      {"held_by", heldByJson(row.held_by)}};
}

json toJson(const Spread& s) { return {{"min", s.min}, {"max", s.max}, {"mean", s.mean}}; }

json toJson(const TallySpread& t) {
  return {{"bytes", toJson(t.bytes)}, {"count", toJson(t.count)}};
}

json toJson(const RangeMemory& m) {
  json j;
  putKey(j, m.key);
  j["live_at_start"] = toJson(m.live_at_start);
  j["live_at_end"] = toJson(m.live_at_end);
  j["peak"] = toJson(m.peak);
  j["floor"] = toJson(m.floor);
  j["allocated"] = toJson(m.allocated);
  j["freed"] = toJson(m.freed);
  j["idle"] = {{"peak", toJson(m.idle.peak)},
               {"live_at_end", toJson(m.idle.live_at_end)},
               {"allocated", toJson(m.idle.allocated)},
               {"freed", toJson(m.idle.freed)}};
  return j;
}

// A trend range's `step`, in the shape of its like row's idle windows and top sites.
json toJson(const WindowStep& s, bool blocks) {
  json memory = json::array();
  for (const WindowStep::Memory& m : s.memory) {
    json j;
    putKey(j, m.key);
    j["floor"] = m.floor;
    j["retained"] = toJson(m.retained, blocks);
    memory.push_back(std::move(j));
  }
  json sites = json::array();
  for (const RetainedStep& r : s.top_sites) sites.push_back(toJson(r, blocks));
  return {{"memory", std::move(memory)}, {"top_sites", std::move(sites)}};
}

json toJson(const IterationRange& r, bool blocks) {
  json j = {{"first", r.first},
            {"last", r.last},
            {"count", r.count()},
            {"like", r.like},
            {"start_ns", r.start_ns},
            {"end_ns", r.end_ns},
            {"duration_ns", toJson(r.duration_ns)},
            {"idle_ns", toJson(r.idle_ns)},
            {"memory", arrayOf(r.memory)}};
  if (!r.step.empty()) j["step"] = toJson(r.step, blocks);  // only then: absent is alike
  return j;
}

json toJson(const Trend& t) {
  json j;
  putKey(j, t.key);
  j["verdict"] = toString(t.verdict);
  j["points"] = t.points;
  j["first_iteration"] = t.first_iteration;
  j["last_iteration"] = t.last_iteration;
  j["slope_bytes_per_iteration"] = t.slope_bytes_per_iteration;
  j["growth_bytes"] = t.growth_bytes;
  j["threshold_bytes"] = t.threshold_bytes;
  j["first_floor"] = t.first_floor;
  j["last_floor"] = t.last_floor;
  return j;
}

json toJson(const symbols::Stack& s) {
  json frames = json::array();
  for (const symbols::Frame& f : s.frames) {
    frames.push_back({{"kind", trace::toString(f.kind)},
                      {"module", f.module},
                      {"offset", f.offset},
                      {"function", f.function},
                      {"file", f.file},
                      {"line", f.line},
                      {"text", symbols::Symbols::render(f)}});
  }
  return {{"id", s.id}, {"frames", frames}};
}

json toJson(const TimelineSeries& t) {
  json points = json::array();
  for (const TimelinePoint& p : t.points) points.push_back({p.start_ns, p.min, p.max, p.last});
  json j;
  putKey(j, t.key);
  j["bucket_ns"] = t.bucket_ns;
  j["points"] = std::move(points);
  return j;
}

json toJson(const SteadyFloor& s) {
  json j;
  putKey(j, s.key);
  j["iteration"] = s.iteration;
  j["idle_floor"] = s.idle_floor;
  return j;
}

template <typename T>
json arrayOf(const std::vector<T>& items) {
  json out = json::array();
  for (const T& item : items) out.push_back(toJson(item));
  return out;
}

// With `placeholders`, the two arrays that grow with the trace (iterations, timeline) are left
// empty, for writeJson to stream.
json runJson(const Report& r, const FindingIds& ids, bool placeholders = false) {
  json iterations = json::array();
  json timeline = json::array();
  json ranges = json::array();
  const bool blocks = hasBlocks(r);
  for (const IterationRange& range : r.iteration_ranges) ranges.push_back(toJson(range, blocks));
  if (!placeholders) {
    for (const IterationRow& row : r.iterations) {
      iterations.push_back(toJson(row, ids, blocks));
    }
    timeline = arrayOf(r.timeline);
  }
  json run = {{"trace", toJson(r.input, r)},
              {"process", toJson(r.process)},
              {"dropped", {{"cupti", r.dropped_cupti}, {"writer", r.dropped_writer}}},
              {"anomalies", toJson(r.anomalies, blocks)},
              {"iteration_source", toString(r.iteration_source)},
              {"detection", detectionJson(r.detection)},
              {"iteration_pattern", r.iteration_pattern},
              {"warmup_iterations", r.warmup_iterations},
              {"memory", arrayOf(r.memory)},
              {"iterations", std::move(iterations)},
              {"iteration_ranges", std::move(ranges)},
              {"trend", {{"verdict", toString(r.verdict)}, {"per_memory", arrayOf(r.trends)}}},
              {"stacks", arrayOf(r.stacks)},
              {"timeline", std::move(timeline)},
              {"steady_idle_floor", arrayOf(r.steady)},
              {"census", censusJson(r.census)},
              {"symbolized", r.symbolized}};
  if (r.overflow) run["overflow"] = true;  // only then: absent is false
  return run;
}

json snippetJson(const std::optional<SourceSnippet>& s) {
  if (!s) return nullptr;
  return {{"first_line", s->first_line}, {"lines", s->lines}};
}

// The holders whose path names the finding's field (analysis/holder_links.h): `holds` per census
// window, and `max_held_bytes`.
void heldLinksJson(const MergedReport& m, const Finding& finding, json& item) {
  const std::vector<HolderLink> links = linkHolders(m.runs, linkName(finding.field));
  json holds = json::array();
  for (const HolderLink& l : links) {
    holds.push_back({{"run", l.run},
                     {"iteration", l.iteration},
                     {"device", l.device},
                     {"bytes", l.bytes},
                     {"count", l.count},
                     {"paths", l.paths}});
  }
  item["holds"] = std::move(holds);
  item["max_held_bytes"] = maxHeldBytes(links);
}

json findingsJson(const MergedReport& m) {
  json items = json::array();
  json errors = json::array();
  if (!m.findings) return {{"source", nullptr}, {"items", items}, {"errors", errors}};
  const std::vector<Finding>& findings = m.findings->items;
  for (uint32_t f = 0; f < findings.size(); ++f) {
    json item = findings[f].raw;
    item["id"] = findings[f].fingerprint;
    item["link_functions"] = findings[f].link.functions;
    item["snippet"] = snippetJson(findings[f].snippet);
    json explains = json::array();
    for (uint32_t run = 0; run < m.runs.size(); ++run) {
      for (const Explained& e : m.runs[run].explained) {
        if (e.finding != f) continue;
        json x = {{"run", run}, {"iteration", e.iteration}, {"last_iteration", e.last_iteration}};
        putKey(x, e.key);
        x["bytes"] = e.retained.bytes;
        x["count"] = e.retained.count;
        explains.push_back(std::move(x));
      }
    }
    item["explains"] = std::move(explains);
    item["max_explained_bytes"] = maxExplainedBytes(m, f);
    heldLinksJson(m, findings[f], item);
    items.push_back(std::move(item));
  }
  for (const std::string& e : m.findings->errors) errors.push_back(e);
  return {{"source", m.findings->path}, {"items", items}, {"errors", errors}};
}

FindingIds findingIds(const MergedReport& m) {
  FindingIds ids;
  if (m.findings) {
    for (const Finding& f : m.findings->items) ids.push_back(f.fingerprint);
  }
  return ids;
}

json document(const MergedReport& m, const FindingIds& ids, bool placeholders) {
  json runs = json::array();
  for (size_t i = 0; i < m.runs.size(); ++i) {
    json run = runJson(m.runs[i], ids, placeholders);
    run["label"] = m.labels[i];
    runs.push_back(std::move(run));
  }
  json worst = nullptr;
  if (m.worst) {
    const Report& r = m.runs[m.worst->run];
    worst = {{"run", m.worst->run}, {"label", m.labels[m.worst->run]}, {"rank", r.process.rank}};
    putKey(worst, m.worst->key);
    worst["iteration"] = m.worst->iteration;
    worst["idle_floor"] = m.worst->idle_floor;
  }
  return {
      {"schema", kReportSchema},
      {"tool", {{"name", "memfloor"}, {"version", m.tool_version}}},
      {"runs", std::move(runs)},
      {"summary", {{"runs", m.runs.size()}, {"verdict", toString(m.verdict)}, {"worst", worst}}},
      {"findings", findingsJson(m)}};
}

}  // namespace

Tally unexplained(const IterationMemory::Idle& idle) {
  Tally counted = idle.retained.inter_iteration;
  counted += idle.retained.leak;
  Tally out;
  out.bytes = counted.bytes > idle.explained.bytes ? counted.bytes - idle.explained.bytes : 0;
  out.count = counted.count > idle.explained.count ? counted.count - idle.explained.count : 0;
  return out;
}

nlohmann::json toJson(const Report& r) { return runJson(r, {}); }

nlohmann::json toJson(const MergedReport& m) { return document(m, findingIds(m), false); }

void writeJson(std::ostream& out, const MergedReport& m) {
  const FindingIds ids = findingIds(m);
  const json doc = document(m, ids, true);
  StreamedArrays streamed;
  for (size_t i = 0; i < m.runs.size(); ++i) {
    const Report& r = m.runs[i];
    const json& run = doc.at("runs").at(i);
    const bool blocks = hasBlocks(r);
    streamed[&run.at("iterations")] = {r.iterations.size(), [&r, &ids, blocks](size_t k) {
                                         return toJson(r.iterations[k], ids, blocks);
                                       }};
    streamed[&run.at("timeline")] = {r.timeline.size(),
                                     [&r](size_t k) { return toJson(r.timeline[k]); }};
  }
  writeIndented(out, doc, streamed);
  out << '\n';
}

std::string toJsonText(const MergedReport& report) {
  std::ostringstream out;
  writeJson(out, report);
  return std::move(out).str();
}

}  // namespace memfloor::report
