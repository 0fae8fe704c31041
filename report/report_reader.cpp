// report.json back into the Report structures: one function per part, mirroring report_json.cpp
// (and docs/report-schema.md) key for key.
#include "report/report_reader.h"

#include <fmt/core.h>

#include <algorithm>
#include <array>
#include <limits>
#include <map>
#include <utility>

#include "common/json_fields.h"
#include "report/held_by_json.h"
#include "report/iteration_ranges.h"
#include "report/tally_json.h"
#include "trace/records.h"

namespace memfloor::report {

using common::JsonFields;

namespace {

using nlohmann::json;

constexpr std::array<trace::MemoryKind, trace::kMemoryKindCount> kMemoryKinds = {
    trace::MemoryKind::kDevice,       trace::MemoryKind::kPinned, trace::MemoryKind::kManaged,
    trace::MemoryKind::kDeviceStatic, trace::MemoryKind::kPool,   trace::MemoryKind::kUnknown,
    trace::MemoryKind::kBlock};
constexpr std::array<trace::FrameKind, trace::kFrameKindCount> kFrameKinds = {
    trace::FrameKind::kNative, trace::FrameKind::kPython};
constexpr std::array<TrendVerdict, 3> kVerdicts = {TrendVerdict::kUnknown, TrendVerdict::kStable,
                                                   TrendVerdict::kGrowing};
constexpr std::array<IterationSource, 4> kSources = {
    IterationSource::kUnknown, IterationSource::kMarkers, IterationSource::kDetected,
    IterationSource::kSteps};

// `cached`, added within memfloor.report/2 and written only in runs with allocator blocks: absent
// reads as 0.
Tally cachedTally(const JsonFields& f, const json& j, std::string_view c) {
  return f.optional(j, c, "cached") != nullptr ? readTally(f, j, c, "cached") : Tally{};
}

// The class tallies of a retained object (a site, or idle.retained).
RetainedTally retained(const JsonFields& f, const json& j, std::string_view c) {
  return {readTally(f, j, c, "inter_iteration"), readTally(f, j, c, "leak"),
          readTally(f, j, c, "persistent"), cachedTally(f, j, c)};
}

// The class tallies of a peak's bytes (a peak_composition, or one of its sites).
PeakTally peakTally(const JsonFields& f, const json& j, std::string_view c) {
  return {readTally(f, j, c, "iteration"),       readTally(f, j, c, "earlier_iteration"),
          readTally(f, j, c, "inter_iteration"), readTally(f, j, c, "leak"),
          readTally(f, j, c, "persistent"),      cachedTally(f, j, c)};
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

MemoryKey key(const JsonFields& f, const json& j, std::string_view c) {
  return {f.u32(j, c, "device"), f.name(j, c, "kind", kMemoryKinds)};
}

template <typename T, typename Read>
std::vector<T> arrayOf(const JsonFields& f, const json& j, std::string_view c, const char* key,
                       Read read) {
  std::vector<T> out;
  f.each(j, c, key,
         [&](const json& item, const std::string& ic) { out.push_back(read(f, item, ic)); });
  return out;
}

MemorySummary memorySummary(const JsonFields& f, const json& j, const std::string& c) {
  MemorySummary m;
  m.key = key(f, j, c);
  m.peak = f.bytes(j, c, "peak");
  m.peak_ns = f.u64(j, c, "peak_ns");
  m.live_at_end = f.bytes(j, c, "live_at_end");
  m.allocated = readTally(f, j, c, "allocated");
  m.freed = readTally(f, j, c, "freed");
  return m;
}

IterationMemory iterationMemory(const JsonFields& f, const json& j, const std::string& c) {
  IterationMemory m;
  m.key = key(f, j, c);
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
  m.idle.retained = retained(f, f.object(idle, ic, "retained"), JsonFields::field(ic, "retained"));
  m.idle.explained = readTally(f, idle, ic, "explained");
  return m;
}

RetainedSite retainedSite(const JsonFields& f, const ReportReader& report, const json& j,
                          const std::string& c) {
  RetainedSite s;
  s.key = key(f, j, c);
  s.stack = f.u32(j, c, "stack");
  s.where = f.string(j, c, "where");
  s.retained = retained(f, j, c);
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

// A spread {"min", "max", "mean"}: of bytes (`bytes`), else of a count or a duration.
Spread spread(const JsonFields& f, const json& j, std::string_view c, const char* key, bool bytes) {
  const std::string sc = JsonFields::field(c, key);
  const json& o = f.object(j, c, key);
  auto at = [&](const char* k) { return bytes ? f.bytes(o, sc, k) : f.u64(o, sc, k); };
  Spread out{at("min"), at("max"), at("mean")};
  if (out.min > out.max || out.mean < out.min || out.mean > out.max) {
    f.fail(sc, "expected min <= mean <= max");
  }
  return out;
}

TallySpread tallySpread(const JsonFields& f, const json& j, std::string_view c, const char* key) {
  const std::string tc = JsonFields::field(c, key);
  const json& o = f.object(j, c, key);
  return {spread(f, o, tc, "bytes", true), spread(f, o, tc, "count", false)};
}

RangeMemory rangeMemory(const JsonFields& f, const json& j, const std::string& c) {
  RangeMemory m;
  m.key = key(f, j, c);
  m.live_at_start = spread(f, j, c, "live_at_start", true);
  m.live_at_end = spread(f, j, c, "live_at_end", true);
  m.peak = spread(f, j, c, "peak", true);
  m.floor = spread(f, j, c, "floor", true);
  m.allocated = tallySpread(f, j, c, "allocated");
  m.freed = tallySpread(f, j, c, "freed");
  const std::string ic = JsonFields::field(c, "idle");
  const json& idle = f.object(j, c, "idle");
  m.idle.peak = spread(f, idle, ic, "peak", true);
  m.idle.live_at_end = spread(f, idle, ic, "live_at_end", true);
  m.idle.allocated = tallySpread(f, idle, ic, "allocated");
  m.idle.freed = tallySpread(f, idle, ic, "freed");
  return m;
}

TallyStep tallyStep(const JsonFields& f, const json& j, std::string_view c, const char* key) {
  const std::string tc = JsonFields::field(c, key);
  const json& o = f.object(j, c, key);
  return {f.i64(o, tc, "bytes"), f.i64(o, tc, "count")};
}

// A retained object's step; `cached` as in retained objects. The totals are derived: not read.
RetainedStep retainedStep(const JsonFields& f, const json& j, const std::string& c) {
  RetainedStep r{tallyStep(f, j, c, "inter_iteration"),
                 tallyStep(f, j, c, "leak"),
                 tallyStep(f, j, c, "persistent"),
                 {}};
  if (f.optional(j, c, "cached") != nullptr) r.cached = tallyStep(f, j, c, "cached");
  return r;
}

WindowStep::Memory memoryStep(const JsonFields& f, const json& j, const std::string& c) {
  return {key(f, j, c), f.i64(j, c, "floor"),
          retainedStep(f, f.object(j, c, "retained"), JsonFields::field(c, "retained"))};
}

// A trend range's `step`; whether it fits its like row is checked once the rows are read
// (checkSteps).
WindowStep windowStep(const JsonFields& f, const json& j, const std::string& c) {
  WindowStep s;
  s.memory = arrayOf<WindowStep::Memory>(f, j, c, "memory", memoryStep);
  s.top_sites = arrayOf<RetainedStep>(f, j, c, "top_sites", retainedStep);
  if (s.empty()) f.fail(c, "expected a memory or a top site: an alike range has no step");
  return s;
}

IterationRange iterationRange(const JsonFields& f, const json& j, const std::string& c) {
  IterationRange r;
  r.first = f.u32(j, c, "first");
  r.last = f.u32(j, c, "last");
  if (r.first == 0 || r.last < r.first) f.fail(c, "expected 1 <= first <= last");
  r.like = f.u32(j, c, "like");
  if (r.like == 0 || r.like >= r.first)
    f.fail(JsonFields::field(c, "like"), "expected 1 <= like < first");
  r.start_ns = f.u64(j, c, "start_ns");
  r.end_ns = f.u64(j, c, "end_ns");
  r.duration_ns = spread(f, j, c, "duration_ns", false);
  r.idle_ns = spread(f, j, c, "idle_ns", false);
  r.memory = arrayOf<RangeMemory>(f, j, c, "memory", rangeMemory);
  // Added within memfloor.report/3, on trend ranges only: absent, the range is alike.
  if (f.optional(j, c, "step") != nullptr)
    r.step = windowStep(f, f.object(j, c, "step"), JsonFields::field(c, "step"));
  return r;
}

// Every iteration of a trend range expands from its like row: a row kept whole, of the step's
// shape, every stepped number within 0..2^63-1 (stepFault).
void checkSteps(const JsonFields& f, const Report& r, const std::string& c) {
  for (size_t k = 0; k < r.iteration_ranges.size(); ++k) {
    const IterationRange& range = r.iteration_ranges[k];
    if (range.step.empty()) continue;
    const std::string rc = JsonFields::index(JsonFields::field(c, "iteration_ranges"), k);
    auto like = std::lower_bound(r.iterations.begin(), r.iterations.end(), range.like,
                                 [](const IterationRow& row, uint32_t i) { return row.index < i; });
    if (like == r.iterations.end() || like->index != range.like) {
      f.fail(JsonFields::field(rc, "like"),
             fmt::format("iteration {} is not kept whole: the step has nothing to start from",
                         range.like));
    }
    const std::string fault = stepFault(range, *like);
    if (!fault.empty()) f.fail(JsonFields::field(rc, "step"), fault);
  }
}

Trend trend(const JsonFields& f, const json& j, const std::string& c) {
  Trend t;
  t.key = key(f, j, c);
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
  s.key = key(f, j, c);
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
  t.key = key(f, j, c);
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

std::optional<DetectedPeriod> detection(const JsonFields& f, const json& run,
                                        const std::string& rc) {
  const json* d = f.optional(run, rc, "detection");  // added within memfloor.report/2
  if (d == nullptr) return std::nullopt;
  const std::string c = JsonFields::field(rc, "detection");
  f.object(*d, c);
  DetectedPeriod p;
  p.key = key(f, *d, c);
  p.stack = f.u32(*d, c, "stack");
  p.where = f.string(*d, c, "where");
  p.size = f.bytes(*d, c, "size");
  p.every = f.u32(*d, c, "every");
  p.occurrences = f.u32(*d, c, "occurrences");
  p.period_ns = f.u64(*d, c, "period_ns");
  p.regular_permille = f.u32(*d, c, "regular_permille");
  return p;
}

Anomalies anomalies(const JsonFields& f, const json& j, const std::string& c) {
  Anomalies a;
  a.unmatched_frees = readTally(f, j, c, "unmatched_frees");
  a.double_allocations = readTally(f, j, c, "double_allocations");
  a.size_mismatches = f.u64(j, c, "size_mismatches");
  a.unmatched_range_ends = f.u64(j, c, "unmatched_range_ends");
  a.unclosed_ranges = f.u64(j, c, "unclosed_ranges");
  a.out_of_order_records = f.u64(j, c, "out_of_order_records");
  if (f.optional(j, c, "blocks_outside_segments") != nullptr) {  // added within memfloor.report/2
    a.blocks_outside_segments = f.u64(j, c, "blocks_outside_segments");
  }
  if (const json* cut = f.optional(j, c, "cut_tail")) {  // added within memfloor.report/2
    const std::string cc = JsonFields::field(c, "cut_tail");
    f.object(*cut, cc);
    a.cut_tail.known = true;
    a.cut_tail.from_ns = f.u64(*cut, cc, "from_ns");
    a.cut_tail.unmatched_frees = readTally(f, *cut, cc, "unmatched_frees");
    a.cut_tail.double_allocations = readTally(f, *cut, cc, "double_allocations");
  }
  if (f.optional(j, c, "warnings") != nullptr) {  // added within memfloor.report/3
    f.each(j, c, "warnings",
           [&](const json& w, const std::string& wc) { a.warnings.push_back(f.string(w, wc)); });
    a.warnings_left_out = f.u64(j, c, "warnings_left_out");
  }
  return a;
}

ProcessMeta process(const JsonFields& f, const json& j, const std::string& c) {
  ProcessMeta p;
  p.present = f.boolean(j, c, "present");
  p.pid = f.u64(j, c, "pid");
  p.start_unix_ns = f.u64(j, c, "start_unix_ns");
  p.host = f.string(j, c, "host");
  p.command_line = f.string(j, c, "command_line");
  p.rank = f.i32(j, c, "rank");
  p.local_rank = f.i32(j, c, "local_rank");
  p.world_size = f.i32(j, c, "world_size");
  f.each(j, c, "devices", [&](const json& d, const std::string& dc) {
    p.devices.push_back(
        {f.u32(d, dc, "device"), f.string(d, dc, "name"), f.bytes(d, dc, "total_memory")});
  });
  p.properties = f.stringMap(j, c, "properties");
  return p;
}

// runs[].trace: the input, its time span and its record counts.
void traceInput(const JsonFields& f, const json& j, const std::string& c, Report& r) {
  r.input.path = f.string(j, c, "path");
  const std::string vc = JsonFields::field(c, "version");
  const json& version = f.object(j, c, "version");
  r.input.major = f.u16(version, vc, "major");
  r.input.minor = f.u16(version, vc, "minor");
  r.input.ending = f.string(j, c, "ending");
  r.input.complete = f.boolean(j, c, "complete");
  r.first_ns = f.u64(j, c, "first_ns");
  r.end_ns = f.u64(j, c, "end_ns");
  const std::string rc = JsonFields::field(c, "records");
  const json& records = f.object(j, c, "records");
  r.records.total = f.u64(records, rc, "total");
  r.records.allocs = f.u64(records, rc, "allocs");
  r.records.frees = f.u64(records, rc, "frees");
  r.records.markers = f.u64(records, rc, "markers");
  r.records.pool_events = f.u64(records, rc, "pool_events");
  if (f.optional(records, rc, "steps") != nullptr) {  // added within memfloor.report/3
    r.records.steps = f.u64(records, rc, "steps");
  }
}

// The writer's additions to a finding of the checker's document (report_json.cpp findingsJson).
constexpr std::array<const char*, 5> kAddedToFinding = {"id", "link_functions", "snippet",
                                                        "explains", "max_explained_bytes"};

Finding finding(const JsonFields& f, const json& j, const std::string& c) {
  Finding out;
  out.fingerprint = f.string(j, c, "id");
  out.rule = f.string(j, c, "rule");
  out.message = f.string(j, c, "message");
  if (const json* loc = f.optional(j, c, "location")) {
    const std::string lc = JsonFields::field(c, "location");
    f.object(*loc, lc);
    out.file = f.string(*loc, lc, "file");
    out.line = f.u32(*loc, lc, "line");
    if (f.optional(*loc, lc, "column") != nullptr) out.column = f.u32(*loc, lc, "column");
  }
  if (f.optional(j, c, "function") != nullptr) out.function = f.string(j, c, "function");
  if (f.optional(j, c, "field") != nullptr) out.field = f.string(j, c, "field");
  if (f.optional(j, c, "link_functions") != nullptr) {
    f.each(j, c, "link_functions", [&](const json& name, const std::string& nc) {
      out.link.functions.push_back(f.string(name, nc));
    });
  }
  if (const json* snippet = f.optional(j, c, "snippet")) {
    const std::string sc = JsonFields::field(c, "snippet");
    f.object(*snippet, sc);
    SourceSnippet s;
    s.first_line = f.u32(*snippet, sc, "first_line");
    f.each(*snippet, sc, "lines",
           [&](const json& line, const std::string& lc) { s.lines.push_back(f.string(line, lc)); });
    out.snippet = std::move(s);
  }
  out.raw = j;
  for (const char* added : kAddedToFinding) out.raw.erase(added);
  return out;
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
  return arrayOf<MemorySummary>(JsonFields(report_->path()), *run_, context_, "memory",
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
      window.top_sites =
          arrayOf<RetainedSite>(f, iterations[row->second], row_ctx, "top_sites",
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
      const MemoryKey k = key(f, m, mc);
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
  return arrayOf<Trend>(f, f.object(*run_, context_, "trend"), c, "per_memory", trend);
}

Report RunReader::report() const {
  const JsonFields f(report_->path());
  const json& run = *run_;
  const std::string& c = context_;
  Report r;
  traceInput(f, f.object(run, c, "trace"), JsonFields::field(c, "trace"), r);
  r.process = process(f, f.object(run, c, "process"), JsonFields::field(c, "process"));
  const std::string dc = JsonFields::field(c, "dropped");
  const json& dropped = f.object(run, c, "dropped");
  r.dropped_cupti = f.u64(dropped, dc, "cupti");
  r.dropped_writer = f.u64(dropped, dc, "writer");
  r.anomalies = anomalies(f, f.object(run, c, "anomalies"), JsonFields::field(c, "anomalies"));
  r.iteration_source = f.name(run, c, "iteration_source", kSources);
  r.detection = detection(f, run, c);
  r.iteration_pattern = f.string(run, c, "iteration_pattern");
  r.warmup_iterations = f.u32(run, c, "warmup_iterations");
  r.memory = memory();
  f.each(run, c, "iterations", [&](const json& row, const std::string& ic) {
    r.iterations.push_back(iterationRow(f, *report_, row, ic));
  });
  // Added in memfloor.report/3: a /2 report keeps every iteration whole.
  if (f.optional(run, c, "iteration_ranges") != nullptr) {
    r.iteration_ranges = arrayOf<IterationRange>(f, run, c, "iteration_ranges", iterationRange);
    checkSteps(f, r, c);
  }
  r.trends = trends();
  r.verdict =
      f.name(f.object(run, c, "trend"), JsonFields::field(c, "trend"), "verdict", kVerdicts);
  r.stacks = arrayOf<symbols::Stack>(f, run, c, "stacks", stack);
  r.timeline = arrayOf<TimelineSeries>(f, run, c, "timeline", timelineSeries);
  r.steady = arrayOf<SteadyFloor>(f, run, c, "steady_idle_floor", steadyFloor);
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

std::vector<Finding> ReportReader::findings() const {
  const JsonFields f(path_);
  return arrayOf<Finding>(f, f.object(*doc_, "", "findings"), "findings", "items", finding);
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
    w.key = key(f, *worst, c);
    w.iteration = f.u32(*worst, c, "iteration");
    w.idle_floor = f.bytes(*worst, c, "idle_floor");
    m.worst = w;
  }

  const json& findings = f.object(*doc_, "", "findings");
  std::vector<Finding> items = this->findings();
  if (const json* source = f.optional(findings, "findings", "source")) {
    FindingsFile file;
    file.path = f.string(*source, "findings.source");
    f.each(findings, "findings", "errors",
           [&](const json& e, const std::string& c) { file.errors.push_back(f.string(e, c)); });
    file.items = std::move(items);
    m.findings = std::move(file);
  } else if (!items.empty()) {
    f.fail("findings.source", "null, but findings.items lists findings");
  }
  // What each finding explains is kept per run (Report::explained), by finding.
  const json& list = f.array(findings, "findings", "items");
  for (uint32_t finding = 0; finding < list.size(); ++finding) {
    const json& item = list[finding];
    const std::string ic = JsonFields::index("findings.items", finding);
    if (f.optional(item, ic, "explains") == nullptr) continue;
    f.each(item, ic, "explains", [&](const json& x, const std::string& xc) {
      const uint32_t run = f.u32(x, xc, "run");
      if (run >= runs)
        f.fail(JsonFields::field(xc, "run"), fmt::format("run {} is not in runs", run));
      Explained e;
      e.finding = finding;
      e.iteration = f.u32(x, xc, "iteration");
      // Added in memfloor.report/3: before, an entry is one iteration's.
      e.last_iteration = e.iteration;
      if (f.optional(x, xc, "last_iteration") != nullptr) {
        e.last_iteration = f.u32(x, xc, "last_iteration");
        if (e.last_iteration < e.iteration)
          f.fail(JsonFields::field(xc, "last_iteration"), "expected last_iteration >= iteration");
      }
      e.key = key(f, x, xc);
      e.retained = {f.bytes(x, xc, "bytes"), f.u64(x, xc, "count")};
      m.runs[run].explained.push_back(e);
    });
  }
  return m;
}

MergedReport readReport(const json& doc, std::string_view path) {
  return ReportReader(doc, path).read();
}

}  // namespace memfloor::report
