// report.json: the document and its runs, one function per part, mirroring docs/report-schema.md;
// the ranges, the run's facts and the findings are written beside their readers (range_json.h,
// run_facts_json.h, findings_json.h). The objects a report holds thousands of (rows, tallies,
// sites) set their keys one by one: an initializer list builds each pair as an array first.
#include "report/report_json.h"

#include <algorithm>
#include <sstream>
#include <utility>

#include "report/codec.h"
#include "report/findings_json.h"
#include "report/held_by_json.h"
#include "report/json_stream.h"
#include "report/levels.h"
#include "report/range_json.h"
#include "report/run_facts_json.h"
#include "report/tally_json.h"
#include "report/views_json.h"
#include "symbols/symbols.h"

namespace memfloor::report {
namespace {

using nlohmann::json;

json toJson(const Tally& t) { return tallyJson(t); }

template <typename T>
json arrayOf(const std::vector<T>& items);

json toJson(const RetainedTally& r, bool blocks) { return retainedJson(r, r.total(), blocks); }

// A peak's bytes: the total, then one tally per class (docs/report-schema.md, "peak").
json toJson(const PeakTally& p, bool blocks) {
  Tally total = p.total();
  json j;
  j["bytes"] = total.bytes;
  j["count"] = total.count;
  j["iteration"] = toJson(p.iteration);
  j["earlier_iteration"] = toJson(p.earlier_iteration);
  j["inter_iteration"] = toJson(p.inter_iteration);
  j["leak"] = toJson(p.leak);
  j["persistent"] = toJson(p.persistent);
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
  json& idle = j["idle"];
  idle["floor"] = m.idle.floor;
  idle["peak"] = m.idle.peak;
  idle["live_at_end"] = m.idle.live_at_end;
  idle["allocated"] = toJson(m.idle.allocated);
  idle["freed"] = toJson(m.idle.freed);
  idle["retained"] = toJson(m.idle.retained, blocks);
  idle["explained"] = toJson(m.idle.explained);
  idle["unexplained"] = toJson(unexplained(m.idle));
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
  json j;
  j["index"] = row.index;
  j["name"] = row.name;
  j["start_ns"] = row.start_ns;
  j["end_ns"] = row.end_ns;
  j["complete"] = row.complete;
  j["warmup"] = row.warmup;
  json& idle = j["idle"];
  idle["start_ns"] = row.idle_start_ns;
  idle["end_ns"] = row.idle_end_ns;
  idle["final"] = row.idle_final;
  j["memory"] = std::move(memory);
  j["top_sites"] = std::move(sites);
  j["held_by"] = heldByJson(row.held_by);
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

// A timeline series, written as text: its points are most of a small run's report. Keys in
// ascending order (JsonText).
void writeTimeline(JsonText& text, const TimelineSeries& t) {
  text.beginObject();
  text.key("bucket_ns");
  text.value(t.bucket_ns);
  writeKey(text, t.key);
  text.key("points");
  text.beginArray();
  for (const TimelinePoint& p : t.points) {
    text.beginArray();
    for (const uint64_t v : {p.start_ns, p.min, p.max, p.last}) text.value(v);
    text.end();
  }
  text.end();
  text.end();
}

json toJson(const TimelineSeries& t) {
  JsonText text;
  writeTimeline(text, t);
  return json::parse(text.text());
}

json toJson(const SteadyFloor& s) { return steadyFloorJson(s); }

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
  for (const IterationRange& range : r.iteration_ranges) ranges.push_back(rangeJson(range, blocks));
  if (!placeholders) {
    for (const IterationRow& row : r.iterations) {
      iterations.push_back(toJson(row, ids, blocks));
    }
    timeline = arrayOf(r.timeline);
  }
  json run = {{"trace", traceJson(r)},
              {"process", processJson(r.process)},
              {"dropped", {{"cupti", r.dropped_cupti}, {"writer", r.dropped_writer}}},
              {"anomalies", anomaliesJson(r.anomalies, blocks)},
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
  run.update(runViewsJson(r));
  if (r.overflow) run["overflow"] = true;  // only then: absent is false
  return run;
}

FindingIds findingIds(const MergedReport& m) {
  FindingIds ids;
  if (m.findings) {
    for (const LinkedFinding& f : m.findings->items) ids.push_back(f.fingerprint);
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
    streamed[&run.at("iterations")] = {r.iterations.size(),
                                       [&r, &ids, blocks](JsonText& text, size_t k) {
                                         text.value(toJson(r.iterations[k], ids, blocks));
                                       }};
    streamed[&run.at("timeline")] = {
        r.timeline.size(), [&r](JsonText& text, size_t k) { writeTimeline(text, r.timeline[k]); }};
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
