// The Report: everything `memfloor analyze` found, in plain structs (docs/report-schema.md).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "symbols/frame.h"
#include "trace/records.h"

namespace memfloor::report {

// The tool version written into reports ("0.1.0").
std::string_view toolVersion();

// What the CLI knows about the input file; the analysis only copies it into the report.
struct TraceInput {
  std::string path;
  uint16_t major = 0, minor = 0;
  std::string
      ending;  // one line, e.g. "complete (trailer present)" or "truncated at offset N: ..."
  bool complete = true;
};

// Bytes and how many allocations hold them.
struct Tally {
  uint64_t bytes = 0;
  uint64_t count = 0;
  void add(uint64_t size) {
    bytes += size;
    ++count;
  }
  Tally& operator+=(const Tally& o) {
    bytes += o.bytes;
    count += o.count;
    return *this;
  }
  Tally& operator-=(const Tally& o) {
    bytes -= o.bytes;
    count -= o.count;
    return *this;
  }
  bool operator==(const Tally&) const = default;
};

enum class RetentionClass : uint8_t { kInterIteration, kLeak, kPersistent, kCached };

// Retained bytes split by class (docs/design.md, "Retention").
struct RetainedTally {
  Tally inter_iteration;
  Tally leak;
  Tally persistent;
  Tally cached{};  // only on a caching allocator's reserved level (report/levels.h)
  Tally total() const {
    return {inter_iteration.bytes + leak.bytes + persistent.bytes + cached.bytes,
            inter_iteration.count + leak.count + persistent.count + cached.count};
  }
  RetentionClass dominant()
      const;  // the class holding the most bytes (ties: inter, leak, persistent, cached)
  Tally& of(RetentionClass c);  // the tally of one class
  RetainedTally& operator+=(const RetainedTally& o);
  bool operator==(const RetainedTally&) const = default;
};

enum class PeakClass : uint8_t {
  kIteration,
  kEarlierIteration,
  kInterIteration,
  kLeak,
  kPersistent,
  kCached
};

// Bytes live at an iteration's peak, by when they were made (docs/design.md, "Peak composition").
// What was made before the iteration and retained by an idle window takes the retention classes.
struct PeakTally {
  Tally iteration;          // made in this iteration: transient
  Tally earlier_iteration;  // made in counted time before it, retained by no idle window yet
  Tally inter_iteration;    // made in an earlier counted iteration, retained, freed later
  Tally leak;               // made in an earlier counted iteration, retained, a leak
  Tally persistent;         // made before the first counted iteration, or made once and kept
  Tally cached{};           // made in an earlier counted iteration, retained, an allocator's cache
  Tally total() const;
  PeakClass dominant() const;  // the class holding the most bytes (ties: in the order above)
  PeakTally& operator+=(const PeakTally& o);
  bool operator==(const PeakTally&) const = default;
};

// Identifies a timeline: one device and one memory kind.
struct MemoryKey {
  uint32_t device = 0;
  trace::MemoryKind kind = trace::MemoryKind::kDevice;
  bool operator==(const MemoryKey&) const = default;
};

// A site's bytes live at an iteration's peak: one allocating stack on one device and memory kind.
struct PeakSite {
  trace::StackId stack = trace::kNoId;
  std::string where;  // named as RetainedSite::where
  PeakTally live;
  bool operator==(const PeakSite&) const = default;
};

// The bytes at a peak made under one module's forward or backward (docs/design.md, "Module
// paths"): its path in the model, or "(no module)".
struct PeakModule {
  std::string module;
  Tally live;
  bool operator==(const PeakModule&) const = default;
};

// What is live at an iteration's peak, the first time it is reached: by class (the classes sum to
// the peak), the sites holding the most and, where allocations carry modules, the modules.
struct PeakSnapshot {
  uint64_t at_ns = 0;  // when; the iteration's start when nothing rose above the live bytes there
  PeakTally live;
  std::vector<PeakSite> sites;        // ranked by bytes, at most AnalysisOptions::top_sites
  std::vector<PeakModule> modules{};  // ranked by bytes, as many; empty without modules
  bool operator==(const PeakSnapshot&) const = default;
};

// One device and memory kind over one iteration and the idle window after it.
struct IterationMemory {
  MemoryKey key;
  uint64_t live_at_start = 0;
  uint64_t live_at_end = 0;
  uint64_t peak = 0;   // max live bytes within the iteration
  uint64_t floor = 0;  // min live bytes within the iteration
  Tally allocated;
  Tally freed;
  std::optional<PeakSnapshot> peak_composition{};  // what is live at `peak` (none: an older report)
  struct Idle {
    uint64_t floor = 0;  // THE idle floor: min live bytes over the idle window
    uint64_t peak = 0;
    uint64_t live_at_end = 0;
    Tally allocated;
    Tally freed;
    RetainedTally retained;  // live throughout the window, allocated before it
    Tally explained{};       // of retained's counted part: held by sites linked to a finding
  } idle;
};

// A retaining site in one idle window: one allocating stack on one device and memory kind.
struct RetainedSite {
  MemoryKey key;
  trace::StackId stack = trace::kNoId;
  std::string where;  // the site's name: a user frame (symbols/site_namer.h)
  RetainedTally retained;
  std::vector<uint32_t> findings{};  // indexes into AnalysisOptions::links whose rule matched
  bool operator==(const RetainedSite&) const = default;
};

// Bytes of counted iterations that one finding's linked sites retain in one idle window.
// Consecutive windows that retain the same are one entry (report/iteration_ranges.h).
struct Explained {
  uint32_t finding = 0;    // index into AnalysisOptions::links
  uint32_t iteration = 0;  // 1-based: the window after this iteration
  MemoryKey key;
  Tally retained;               // in each window of iteration..last_iteration
  uint32_t last_iteration = 0;  // inclusive; >= iteration
  bool operator==(const Explained&) const = default;
};

// The largest idle floor of one device and memory kind over the steady windows (report-schema.md).
struct SteadyFloor {
  MemoryKey key;
  uint32_t iteration = 0;  // 1-based; 0 when there is no window
  uint64_t idle_floor = 0;
};

// One holder of a census (docs/design.md, "Holders"): a Python path and the live blocks (on a
// device without blocks, device allocations) that its storages lie in, each block counted once per
// census, for the storage listed first.
struct Holder {
  std::string path;            // the shortest named path from a root: "model.layers[1].mlp.weight"
  uint64_t bytes = 0;          // its blocks' bytes
  uint64_t count = 0;          // its blocks
  uint64_t storage_bytes = 0;  // its storages' bytes (within those blocks)
  uint64_t address = 0;        // its first storage's
  trace::HeldRole role = trace::HeldRole::kOther;  // its first storage's
  RetentionClass cls = RetentionClass::kPersistent;
  std::string rule;                     // one line: why that class
  std::vector<std::string> via_graph;   // autograd nodes on the way, outermost first
  bool shared = false;                  // a storage of it is reached from more than one root
  trace::StackId stack = trace::kNoId;  // its first block's allocation site
  std::string where;                    // named as RetainedSite::where
  bool operator==(const Holder&) const = default;
};

// The storages a census listed: matched to a live block, or not.
struct CensusStorages {
  Tally found;        // every storage of the census
  Tally not_matched;  // in no live block of its device
  Tally same_block;   // in a block an earlier storage of the census holds already
  bool operator==(const CensusStorages&) const = default;
};

// One census of one device, the last in an idle window: what Python paths hold of the device's
// live allocated bytes, and what they do not reach.
struct HeldBy {
  uint32_t device = 0;
  uint64_t timestamp = 0;
  uint32_t step = 0;  // the program's training steps then (0: unknown)
  uint64_t objects = 0;
  uint64_t duration_ns = 0;
  bool complete = true;    // false: the walk stopped at its object limit
  uint64_t allocated = 0;  // live bytes of the device's allocated level (blocks, else device)
  Tally held;              // live blocks a storage lies in, each once
  Tally not_seen;          // the other live blocks: allocated - held
  std::string not_seen_reason;
  RetainedTally by_class;       // held, by the holders' classes (never cached)
  std::vector<Holder> holders;  // by bytes, at most 4 x AnalysisOptions::top_sites
  Tally holders_left_out;       // bytes and number of the holders not listed
  CensusStorages storages;
  bool operator==(const HeldBy&) const = default;
};

// A census that is not used: inside an iteration, or before the first one.
struct CensusOutside {
  uint64_t timestamp = 0;
  uint32_t device = 0;
  uint32_t step = 0;
  bool operator==(const CensusOutside&) const = default;
};

struct CensusCount {
  uint32_t taken = 0;            // censuses in the trace
  uint32_t in_idle_windows = 0;  // of them, in an idle window (the last of each device is used)
  std::vector<CensusOutside> outside;
  bool operator==(const CensusCount&) const = default;
};

struct IterationRow {
  uint32_t index = 0;  // 1-based, in order of start
  std::string name;    // the name of the marker range that opened it
  uint64_t start_ns = 0;
  uint64_t end_ns = 0;
  bool complete = true;  // false when the trace ended inside the iteration
  bool warmup = false;   // among the first AnalysisOptions::warmup_iterations
  uint64_t idle_start_ns = 0;
  uint64_t idle_end_ns = 0;
  bool idle_final = false;  // the window after the last iteration; it ends with the trace
  std::vector<IterationMemory> memory;  // same order as Report::memory
  std::vector<RetainedSite> top_sites;  // ranked, at most AnalysisOptions::top_sites
  std::vector<HeldBy> held_by{};        // per device with a census in the window, by device
};

// Min, max and mean (rounded to the nearest) of one number over the iterations of a range.
struct Spread {
  uint64_t min = 0, max = 0, mean = 0;
  bool operator==(const Spread&) const = default;
};

struct TallySpread {
  Spread bytes, count;
  bool operator==(const TallySpread&) const = default;
};

// One device and memory kind over the iterations of a range: the spreads of IterationMemory's
// numbers that may differ between alike iterations. The idle floor, retained and explained bytes
// are the `like` row's.
struct RangeMemory {
  MemoryKey key;
  Spread live_at_start, live_at_end, peak, floor;
  TallySpread allocated, freed;
  struct Idle {
    Spread peak, live_at_end;
    TallySpread allocated, freed;
    bool operator==(const Idle&) const = default;
  } idle;
  bool operator==(const RangeMemory&) const = default;
};

// What a Tally gains per iteration along a trend (signed: it may fall).
struct TallyStep {
  int64_t bytes = 0;
  int64_t count = 0;
  bool operator==(const TallyStep&) const = default;
};

struct RetainedStep {
  TallyStep inter_iteration, leak, persistent, cached;
  bool operator==(const RetainedStep&) const = default;
};

// What the idle windows of a trend range gain per iteration, in the shape of its `like` row's:
// iteration i's window is like's plus (i - like) steps, every number exactly. Empty: the windows
// repeat like's (docs/report-schema.md, "iteration_ranges[]").
struct WindowStep {
  struct Memory {
    MemoryKey key;
    int64_t floor = 0;  // idle.floor
    RetainedStep retained;
    bool operator==(const Memory&) const = default;
  };
  std::vector<Memory> memory;           // like's memory, in its order
  std::vector<RetainedStep> top_sites;  // like's top sites, in their order
  bool empty() const { return memory.empty() && top_sites.empty(); }
  bool operator==(const WindowStep&) const = default;
};

// Consecutive iterations whose idle windows repeat the kept row `like`'s exactly (floor, retained,
// explained bytes and top sites), or move from it by the same step each iteration
// (docs/report-schema.md, "iteration_ranges[]").
struct IterationRange {
  uint32_t first = 0, last = 0;  // 1-based, inclusive
  uint32_t like = 0;             // index of the kept row before `first`
  uint64_t start_ns = 0;         // first's start
  uint64_t end_ns = 0;           // the end of last's idle window
  Spread duration_ns, idle_ns;
  std::vector<RangeMemory> memory;  // same order as Report::memory
  WindowStep step{};                // empty: alike; else a trend
  uint32_t count() const { return last - first + 1; }
  bool operator==(const IterationRange&) const = default;
};

// Whole-trace summary of one device and memory kind.
struct MemorySummary {
  MemoryKey key;
  uint64_t peak = 0;
  uint64_t peak_ns = 0;
  uint64_t live_at_end = 0;
  Tally allocated;
  Tally freed;  // matched frees plus allocations closed by a double allocation
};

enum class TrendVerdict : uint8_t { kUnknown, kStable, kGrowing };

struct Trend {
  MemoryKey key;
  TrendVerdict verdict = TrendVerdict::kUnknown;
  uint32_t points = 0;           // idle windows fitted
  uint32_t first_iteration = 0;  // 1-based index of the first fitted window (0 if none)
  uint32_t last_iteration = 0;
  int64_t slope_bytes_per_iteration = 0;  // least squares, rounded
  int64_t growth_bytes = 0;               // slope * (points - 1), rounded
  uint64_t threshold_bytes = 0;           // growth above this is "growing"
  uint64_t first_floor = 0;
  uint64_t last_floor = 0;
};

// The anomalies of a cut trace's last flush period (analysis/recent_anomalies.h): counted in
// Anomalies as well, and likely caused by the cut.
struct CutTail {
  bool known = false;    // the trace has no trailer and the hook's flush period is recorded
  uint64_t from_ns = 0;  // one flush period before the last memory record
  Tally unmatched_frees;
  Tally double_allocations;
};

struct Anomalies {
  Tally unmatched_frees;         // frees with no live allocation at their address
  Tally double_allocations;      // allocations closed because a new one arrived at their address
  uint64_t size_mismatches = 0;  // frees whose size differs from their allocation's
  uint64_t unmatched_range_ends = 0;  // pops on an empty thread stack, ends of unknown range ids
  uint64_t unclosed_ranges = 0;       // marker ranges still open at the end of the trace
  uint64_t out_of_order_records =
      0;  // timed records earlier than the one before (input not sorted)
  // Allocator blocks (kind block) not within their device's live device allocations when made.
  uint64_t blocks_outside_segments = 0;
  CutTail cut_tail;
  // Records the analysis could not take as they are, each named (analysis/record_warnings.h):
  // the first few, and how many more there were.
  std::vector<std::string> warnings;
  uint64_t warnings_left_out = 0;
};

struct DeviceMeta {
  uint32_t device = 0;
  std::string name;
  uint64_t total_memory = 0;
};

struct ProcessMeta {
  bool present = false;  // a ProcessInfo record was seen
  uint64_t pid = 0;
  uint64_t start_unix_ns = 0;
  std::string host;
  std::string command_line;
  int32_t rank = trace::kUnknownRank;
  int32_t local_rank = trace::kUnknownRank;
  int32_t world_size = trace::kUnknownRank;
  std::vector<DeviceMeta> devices;                // ordered by device
  std::map<std::string, std::string> properties;  // e.g. "env.PYTORCH_CUDA_ALLOC_CONF"
};

struct RecordCounts {
  uint64_t total = 0;
  uint64_t allocs = 0;
  uint64_t frees = 0;
  uint64_t markers = 0;
  uint64_t pool_events = 0;
  uint64_t steps = 0;  // step records (training steps' begins and ends)
};

// Live bytes over time, downsampled into consecutive buckets of bucket_ns (LiveSeries).
struct TimelinePoint {
  uint64_t start_ns = 0;                // the bucket's start
  uint64_t min = 0, max = 0, last = 0;  // live bytes within the bucket
  bool operator==(const TimelinePoint&) const = default;
};

struct TimelineSeries {
  MemoryKey key;
  uint64_t bucket_ns = 0;
  std::vector<TimelinePoint> points;  // buckets without a record are left out
};

// A closed marker range (kept only with AnalysisOptions::keep_ranges, for exports).
struct MarkerRange {
  std::string name;
  uint64_t thread = 0;
  uint64_t start_ns = 0;
  uint64_t end_ns = 0;
  bool nested = true;  // push/pop (a thread's stack) rather than start/end
};

// Where the iterations came from: iteration markers, the training steps a Python companion saw
// (step records), or a period detected in the allocations.
enum class IterationSource : uint8_t { kUnknown, kMarkers, kDetected, kSteps };

// How iterations were found in a trace without iteration markers (analysis/period_detector.h): the
// allocation that recurs at a regular period (every `every`-th occurrence), the period, and the
// cuts, each at the end of the longest quiet gap of its period.
struct DetectedPeriod {
  MemoryKey key;
  trace::StackId stack = trace::kNoId;
  uint64_t size = 0;
  uint32_t every = 1;
  uint32_t occurrences = 0;       // in the whole trace
  uint64_t period_ns = 0;         // mean time from one occurrence to the every-th next
  uint32_t regular_permille = 0;  // of those times, the share within 10% of the mean, x 1000
  std::string where;              // its stack's name, as RetainedSite::where (set in the report)
};

// One trace's analysis: a run of report.json (the document itself is a MergedReport).
struct Report {
  TraceInput input;
  ProcessMeta process;
  uint64_t dropped_cupti = 0;
  uint64_t dropped_writer = 0;
  // The sizes of the run's allocations (or frees, or held storages) add up past 2^64 - 1: its byte
  // sums wrapped around and are wrong (a corrupt or hand-made trace: no device has that much).
  bool overflow = false;
  Anomalies anomalies;
  RecordCounts records;
  uint64_t first_ns = 0;  // first timed record
  uint64_t end_ns = 0;    // last timed record or the trailer's end timestamp, whichever is later

  IterationSource iteration_source = IterationSource::kUnknown;
  std::optional<DetectedPeriod> detection;  // set when iteration_source is kDetected
  std::string iteration_pattern;
  uint32_t warmup_iterations = 0;

  std::vector<MemorySummary> memory;             // ordered by device, then kind
  std::vector<IterationRow> iterations;          // the ones kept whole (report/iteration_ranges.h)
  std::vector<IterationRange> iteration_ranges;  // the others, alike ones once; by first
  std::vector<Trend> trends;                     // one per entry of `memory`, same order
  // Growing if any trend grows but a reserved level's (report/levels.h: an allocator's cache).
  TrendVerdict verdict = TrendVerdict::kUnknown;
  std::vector<symbols::Stack> stacks;    // the stacks that top_sites refer to, ordered by id
  std::vector<TimelineSeries> timeline;  // one per entry of `memory`, same order
  std::vector<MarkerRange> ranges;       // every closed range, by start; empty unless kept
  std::vector<SteadyFloor> steady;       // one per entry of `memory`, same order
  std::vector<Explained> explained;      // by finding, iteration, then memory order
  CensusCount census;                    // the censuses of the trace (IterationRow::held_by)
  std::map<std::string, std::string> symbolized;  // module path -> file that resolved it ("" none)
};

// "inter_iteration", "leak", "persistent", "cached"
std::string_view toString(RetentionClass c);
std::string_view toString(PeakClass c);  // "iteration", "earlier_iteration", then as RetentionClass
std::string_view toString(TrendVerdict v);     // "unknown", "stable", "growing"
std::string_view toString(IterationSource s);  // "unknown", "markers", "detected", "steps"

}  // namespace memfloor::report
