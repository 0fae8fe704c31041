// report.json back into the Report structures: one function per part, mirroring report_json.cpp
// (and docs/report-schema.md) key for key; the ranges, the run's facts and the findings are read
// beside their writers (range_json.h, run_facts_json.h, findings_json.h).
#include "report/report_reader.h"

#include <fmt/core.h>

#include <algorithm>
#include <array>
#include <limits>
#include <map>
#include <utility>

#include "common/json_fields.h"
#include "report/codec.h"
#include "report/findings_json.h"
#include "report/held_by_json.h"
#include "report/range_json.h"
#include "report/run_facts_json.h"
#include "report/tally_json.h"
#include "trace/records.h"

namespace memfloor::report {

using common::JsonFields;

namespace {

using nlohmann::json;

constexpr std::array<trace::FrameKind, trace::kFrameKindCount> kFrameKinds = {
    trace::FrameKind::kNative, trace::FrameKind::kPython};
constexpr std::array<TrendVerdict, 3> kVerdicts = {TrendVerdict::kUnknown, TrendVerdict::kStable,
                                                   TrendVerdict::kGrowing};
constexpr std::array<IterationSource, 4> kSources = {
    IterationSource::kUnknown, IterationSource::kMarkers, IterationSource::kDetected,
    IterationSource::kSteps};

// The class tallies of a peak's bytes (a peak_composition, or one of its sites).
PeakTally peakTally(const JsonFields& f, const json& j, std::string_view c) {
  return {readTally(f, j, c, "iteration"),       readTally(f, j, c, "earlier_iteration"),
          readTally(f, j, c, "inter_iteration"), readTally(f, j, c, "leak"),
          readTally(f, j, c, "persistent"),      readCachedTally(f, j, c)};
}

// iterations[].memory[].peak_composition, added within memfloor.report/2: absent or null in
// reports written before.
std::optional<PeakSnapshot> peakSnapshot(const JsonFields& f, const json& m,
                                         const std::string& mc) {
  const json* p = f.optional(m, mc, "peak_composition");
  if (p == nullptr) return std::nullopt;
  const std::string c = JsonFields::field(mc, "peak_composition");
  f.object(*p, c);
  PeakSnapshot out;
  out.at_ns = f.u64(*p, c, "at_ns");
  out.live = peakTally(f, *p, c);
  f.each(*p, c, "sites", [&](const json& s, const std::string& sc) {
    out.sites.push_back({f.u32(s, sc, "stack"), f.string(s, sc, "where"), peakTally(f, s, sc)});
  });
  if (f.optional(*p, c, "modules") != nullptr) {  // added within memfloor.report/2
    f.each(*p, c, "modules", [&](const json& g, const std::string& gc) {
      out.modules.push_back(
          {f.string(g, gc, "module"), {f.bytes(g, gc, "bytes"), f.u64(g, gc, "count")}});
    });
  }
  return out;
}

MemorySummary memorySummary(const JsonFields& f, const json& j, const std::string& c) {
  MemorySummary m;
  m.key = readKey(f, j, c);
  m.peak = f.bytes(j, c, "peak");
  m.peak_ns = f.u64(j, c, "peak_ns");
  m.live_at_end = f.bytes(j, c, "live_at_end");
  m.allocated = readTally(f, j, c, "allocated");
  m.freed = readTally(f, j, c, "freed");
  return m;
}

IterationMemory iterationMemory(const JsonFields& f, const json& j, const std::string& c) {
  IterationMemory m;
  m.key = readKey(f, j, c);
  m.live_at_start = f.bytes(j, c, "live_at_start");
  m.live_at_end = f.bytes(j, c, "live_at_end");
  m.peak = f.bytes(j, c, "peak");
  m.floor = f.bytes(j, c, "floor");
  m.allocated = readTally(f, j, c, "allocated");
  m.freed = readTally(f, j, c, "freed");
  m.peak_composition = peakSnapshot(f, j, c);
  const std::string ic = JsonFields::field(c, "idle");
  const json& idle = f.object(j, c, "idle");
  m.idle.floor = f.bytes(idle, ic, "floor");
  m.idle.peak = f.bytes(idle, ic, "peak");
  m.idle.live_at_end = f.bytes(idle, ic, "live_at_end");
  m.idle.allocated = readTally(f, idle, ic, "allocated");
  m.idle.freed = readTally(f, idle, ic, "freed");
  m.idle.retained =
      readRetained(f, f.object(idle, ic, "retained"), JsonFields::field(ic, "retained"));
  m.idle.explained = readTally(f, idle, ic, "explained");
  return m;
}

RetainedSite retainedSite(const JsonFields& f, const ReportReader& report, const json& j,
                          const std::string& c) {
  RetainedSite s;
  s.key = readKey(f, j, c);
  s.stack = f.u32(j, c, "stack");
  s.where = f.string(j, c, "where");
  s.retained = readRetained(f, j, c);
  f.each(j, c, "findings", [&](const json& id, const std::string& name) {
    s.findings.push_back(report.findingIndex(f.string(id, name), name));
  });
  return s;
}

IterationRow iterationRow(const JsonFields& f, const ReportReader& report, const json& j,
                          const std::string& c) {
  IterationRow row;
  row.index = f.u32(j, c, "index");
  row.name = f.string(j, c, "name");
  row.start_ns = f.u64(j, c, "start_ns");
  row.end_ns = f.u64(j, c, "end_ns");
  row.complete = f.boolean(j, c, "complete");
  row.warmup = f.boolean(j, c, "warmup");
  const std::string ic = JsonFields::field(c, "idle");
  const json& idle = f.object(j, c, "idle");
  row.idle_start_ns = f.u64(idle, ic, "start_ns");
  row.idle_end_ns = f.u64(idle, ic, "end_ns");
  row.idle_final = f.boolean(idle, ic, "final");
  f.each(j, c, "memory", [&](const json& m, const std::string& mc) {
    row.memory.push_back(iterationMemory(f, m, mc));
  });
  f.each(j, c, "top_sites", [&](const json& s, const std::string& sc) {
    row.top_sites.push_back(retainedSite(f, report, s, sc));
  });
  row.held_by = readHeldBy(f, j, c);
  return row;
}

Trend trend(const JsonFields& f, const json& j, const std::string& c) {
  Trend t;
  t.key = readKey(f, j, c);
  t.verdict = f.name(j, c, "verdict", kVerdicts);
  t.points = f.u32(j, c, "points");
  t.first_iteration = f.u32(j, c, "first_iteration");
  t.last_iteration = f.u32(j, c, "last_iteration");
  t.slope_bytes_per_iteration = f.i64(j, c, "slope_bytes_per_iteration");
  t.growth_bytes = f.i64(j, c, "growth_bytes");
  t.threshold_bytes = f.bytes(j, c, "threshold_bytes");
  t.first_floor = f.bytes(j, c, "first_floor");
  t.last_floor = f.bytes(j, c, "last_floor");
  return t;
}

SteadyFloor steadyFloor(const JsonFields& f, const json& j, const std::string& c) {
  SteadyFloor s;
  s.key = readKey(f, j, c);
  s.iteration = f.u32(j, c, "iteration");
  s.idle_floor = f.bytes(j, c, "idle_floor");
  return s;
}

symbols::Stack stack(const JsonFields& f, const json& j, const std::string& c) {
  symbols::Stack s;
  s.id = f.u32(j, c, "id");
  f.each(j, c, "frames", [&](const json& fr, const std::string& fc) {
    symbols::Frame frame;
    frame.kind = f.name(fr, fc, "kind", kFrameKinds);
    frame.module = f.string(fr, fc, "module");
    frame.offset = f.u64(fr, fc, "offset");
    frame.function = f.string(fr, fc, "function");
    frame.file = f.string(fr, fc, "file");
    frame.line = f.u32(fr, fc, "line");
    s.frames.push_back(std::move(frame));
  });
  return s;
}

TimelineSeries timelineSeries(const JsonFields& f, const json& j, const std::string& c) {
  TimelineSeries t;
  t.key = readKey(f, j, c);
  t.bucket_ns = f.u64(j, c, "bucket_ns");
  f.each(j, c, "points", [&](const json& p, const std::string& pc) {
    // [start_ns, min, max, last]
    if (!p.is_array() || p.size() != 4) f.fail(pc, "expected [start_ns, min, max, last]");
    auto at = [&](size_t i, uint64_t max) {
      return f.unsignedInt(p[i], JsonFields::index(pc, i), max);
    };
    t.points.push_back({at(0, std::numeric_limits<uint64_t>::max()), at(1, JsonFields::kMaxBytes),
                        at(2, JsonFields::kMaxBytes), at(3, JsonFields::kMaxBytes)});
  });
  return t;
}

}  // namespace

// ---- RunReader ----

RunReader::RunReader(const ReportReader& report, const json& run, std::string context)
    : report_(&report), run_(&run), context_(std::move(context)) {
  // `overflow` is written only when true; absent is false (docs/report-schema.md). A run whose
  // byte sums wrapped around has wrong sizes, some past what a report holds (kMaxBytes): it is
  // refused by name here, not at its first size out of range, nor drawn or compared as if right.
  const JsonFields f(report_->path());
  if (f.optional(run, context_, "overflow") != nullptr && f.boolean(run, context_, "overflow")) {
    f.fail(JsonFields::field(context_, "overflow"),
           "the trace's byte sums passed 2^64 - 1 and wrapped around: its sizes are wrong, and "
           "are neither shown nor compared");
  }
}

std::string RunReader::label() const {
  return JsonFields(report_->path()).string(*run_, context_, "label");
}

std::vector<MemorySummary> RunReader::memory() const {
  return readArray<MemorySummary>(JsonFields(report_->path()), *run_, context_, "memory",
                                  memorySummary);
}

std::vector<HeldBy> RunReader::lastCensuses() const {
  const JsonFields f(report_->path());
  std::map<uint32_t, HeldBy> last;
  f.each(*run_, context_, "iterations", [&](const json& row, const std::string& c) {
    for (HeldBy& census : readHeldBy(f, row, c)) {
      last[census.device] = std::move(census);
    }
  });
  std::vector<HeldBy> out;
  for (auto& [device, census] : last) out.push_back(std::move(census));
  return out;
}

std::vector<SteadyWindow> RunReader::steadyWindows() const {
  const JsonFields f(report_->path());
  std::vector<SteadyWindow> out;
  std::optional<std::unordered_map<uint32_t, size_t>> rows;  // index -> position, on first use
  f.each(*run_, context_, "steady_idle_floor", [&](const json& entry, const std::string& c) {
    SteadyWindow window{steadyFloor(f, entry, c), {}};
    const uint32_t iteration = window.floor.iteration;
    if (iteration != 0) {  // 0: no idle window
      const json& iterations = f.array(*run_, context_, "iterations");
      const std::string ic = JsonFields::field(context_, "iterations");
      if (!rows) {
        rows.emplace();
        for (size_t i = 0; i < iterations.size(); ++i) {
          (*rows)[f.u32(iterations[i], JsonFields::index(ic, i), "index")] = i;  // the last wins
        }
      }
      auto row = rows->find(iteration);
      if (row == rows->end()) {
        f.fail(JsonFields::field(c, "iteration"),
               fmt::format("iteration {} is not in the run's iterations", iteration));
      }
      const std::string row_ctx = fmt::format("{}[index {}]", ic, iteration);
      window.top_sites = readArray<RetainedSite>(
          f, iterations[row->second], row_ctx, "top_sites",
          [this](const JsonFields& ff, const json& s, const std::string& sc) {
            return retainedSite(ff, *report_, s, sc);
          });
    }
    out.push_back(std::move(window));
  });
  return out;
}

std::vector<LargestPeak> RunReader::largestPeaks() const {
  const JsonFields f(report_->path());
  std::vector<LargestPeak> out;
  f.each(*run_, context_, "iterations", [&](const json& row, const std::string& rc) {
    const uint32_t index = f.u32(row, rc, "index");
    f.each(row, rc, "memory", [&](const json& m, const std::string& mc) {
      const MemoryKey k = readKey(f, m, mc);
      const uint64_t peak = f.bytes(m, mc, "peak");
      auto it =
          std::find_if(out.begin(), out.end(), [&](const LargestPeak& p) { return p.key == k; });
      if (it != out.end() && peak <= it->peak) return;
      if (it == out.end()) it = out.insert(out.end(), LargestPeak{k, 0, 0, std::nullopt});
      *it = {k, index, peak, peakSnapshot(f, m, mc)};
    });
  });
  return out;
}

std::vector<Trend> RunReader::trends() const {
  const JsonFields f(report_->path());
  const std::string c = JsonFields::field(context_, "trend");
  return readArray<Trend>(f, f.object(*run_, context_, "trend"), c, "per_memory", trend);
}

Report RunReader::report() const {
  const JsonFields f(report_->path());
  const json& run = *run_;
  const std::string& c = context_;
  Report r;
  readTrace(f, f.object(run, c, "trace"), JsonFields::field(c, "trace"), r);
  r.process = readProcess(f, f.object(run, c, "process"), JsonFields::field(c, "process"));
  const std::string dc = JsonFields::field(c, "dropped");
  const json& dropped = f.object(run, c, "dropped");
  r.dropped_cupti = f.u64(dropped, dc, "cupti");
  r.dropped_writer = f.u64(dropped, dc, "writer");
  r.anomalies = readAnomalies(f, f.object(run, c, "anomalies"), JsonFields::field(c, "anomalies"));
  r.iteration_source = f.name(run, c, "iteration_source", kSources);
  r.detection = readDetection(f, run, c);
  r.iteration_pattern = f.string(run, c, "iteration_pattern");
  r.warmup_iterations = f.u32(run, c, "warmup_iterations");
  r.memory = memory();
  f.each(run, c, "iterations", [&](const json& row, const std::string& ic) {
    r.iterations.push_back(iterationRow(f, *report_, row, ic));
  });
  // Added in memfloor.report/3: a /2 report keeps every iteration whole.
  if (f.optional(run, c, "iteration_ranges") != nullptr) {
    r.iteration_ranges = readArray<IterationRange>(f, run, c, "iteration_ranges", readRange);
    checkSteps(f, r, c);
  }
  r.trends = trends();
  r.verdict =
      f.name(f.object(run, c, "trend"), JsonFields::field(c, "trend"), "verdict", kVerdicts);
  r.stacks = readArray<symbols::Stack>(f, run, c, "stacks", stack);
  r.timeline = readArray<TimelineSeries>(f, run, c, "timeline", timelineSeries);
  r.steady = readArray<SteadyFloor>(f, run, c, "steady_idle_floor", steadyFloor);
  r.census = readCensus(f, run, c);
  // Absent in reports of memfloor.report/2 written before symbolization was recorded.
  if (f.optional(run, c, "symbolized") != nullptr) r.symbolized = f.stringMap(run, c, "symbolized");
  return r;
}

// ---- ReportReader ----

ReportReader::ReportReader(const json& doc, std::string_view path) : doc_(&doc), path_(path) {}

size_t ReportReader::runCount() const { return JsonFields(path_).array(*doc_, "", "runs").size(); }

RunReader ReportReader::run(size_t index) const {
  const json& runs = JsonFields(path_).array(*doc_, "", "runs");
  return RunReader(*this, runs.at(index), JsonFields::index("runs", index));
}

std::vector<LinkedFinding> ReportReader::findings() const {
  const JsonFields f(path_);
  return readArray<LinkedFinding>(f, f.object(*doc_, "", "findings"), "findings", "items",
                                  readFinding);
}

uint32_t ReportReader::findingIndex(const std::string& id, std::string_view field) const {
  if (!ids_) {
    const JsonFields f(path_);
    std::unordered_map<std::string, uint32_t> ids;
    uint32_t next = 0;
    f.each(f.object(*doc_, "", "findings"), "findings", "items",
           [&](const json& item, const std::string& c) {
             ids.emplace(f.string(item, c, "id"), next++);
           });
    ids_ = std::move(ids);
  }
  auto it = ids_->find(id);
  if (it == ids_->end()) {
    JsonFields(path_).fail(field, fmt::format("finding \"{}\" is not in findings.items", id));
  }
  return it->second;
}

MergedReport ReportReader::read() const {
  const JsonFields f(path_);
  MergedReport m;
  const size_t runs = runCount();
  for (size_t i = 0; i < runs; ++i) {
    RunReader reader = run(i);
    m.labels.push_back(reader.label());
    m.runs.push_back(reader.report());
  }
  m.tool_version = f.string(f.object(*doc_, "", "tool"), "tool", "version");

  const json& summary = f.object(*doc_, "", "summary");
  m.verdict = f.name(summary, "summary", "verdict", kVerdicts);
  if (const json* worst = f.optional(summary, "summary", "worst")) {
    const std::string c = "summary.worst";
    f.object(*worst, c);
    WorstRun w;
    w.run = f.u32(*worst, c, "run");
    if (w.run >= runs)
      f.fail(JsonFields::field(c, "run"), fmt::format("run {} is not in runs", w.run));
    w.key = readKey(f, *worst, c);
    w.iteration = f.u32(*worst, c, "iteration");
    w.idle_floor = f.bytes(*worst, c, "idle_floor");
    m.worst = w;
  }

  readFindings(f, *doc_, findings(), m);
  return m;
}

MergedReport readReport(const json& doc, std::string_view path) {
  return ReportReader(doc, path).read();
}

}  // namespace memfloor::report
