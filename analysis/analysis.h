// Analysis: replays a trace's records into iterations, floors and retention (the Report).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "analysis/holders.h"
#include "analysis/idle_cuts.h"
#include "analysis/iteration_tracker.h"
#include "analysis/live_series.h"
#include "analysis/live_set.h"
#include "analysis/module_groups.h"
#include "analysis/peak_composition.h"
#include "analysis/period_detector.h"
#include "analysis/recent_anomalies.h"
#include "analysis/report.h"
#include "analysis/retention.h"
#include "analysis/segment_map.h"
#include "analysis/site_links.h"
#include "analysis/timeline.h"
#include "symbols/symbols.h"
#include "trace/event.h"
#include "trace/records.h"

namespace memfloor::analysis {

class AllocationLedger;

struct AnalysisOptions {
  // RE2 regex, case-insensitive, full match on the marker name (kDefaultIterationPattern).
  std::string iteration_pattern{kDefaultIterationPattern};
  // The pattern a trace records (the hook's hook.iteration_pattern: what `memfloor run
  // --iteration-pattern` or MEMFLOOR_ITERATION_PATTERN set) replaces iteration_pattern; false
  // where the user named one (analyze's and export's --iteration-pattern).
  bool recorded_pattern = true;
  // The NVTX domain of the iteration ranges: "" the default domain. Ranges of other domains
  // (NCCL's, a profiler's) never open or close an iteration.
  std::string iteration_domain{};
  // Step records are ignored (the replay after a first one found iteration markers only after
  // steps had begun; see analyzeReplays).
  bool markers_only = false;
  uint32_t warmup_iterations = 0;   // excluded from trends; what they allocate counts as persistent
  uint32_t top_sites = 10;          // retaining sites listed per idle window, and per peak
  uint32_t timeline_points = 2048;  // max points of each downsampled live-bytes series
  bool keep_ranges = false;         // keep every closed marker range in Report::ranges (exports)
  // Store alike iterations once, as Report::iteration_ranges (report/iteration_ranges.h); off
  // for exports, which draw every iteration.
  bool compact_iterations = true;
  std::vector<LinkRule> links{};  // findings to link to retaining sites (analysis/site_links.h)
  symbols::FrameResolver* resolver = nullptr;  // resolves native frames at finish(); not owned
  AllocationLedger* ledger = nullptr;     // every allocation and its class (exports); not owned
  symbols::SitePatterns site_patterns{};  // which frames name sites (symbols/site_namer.h)
  // Iterations of a trace with neither iteration markers nor step records take three replays
  // (docs/design.md, "Detected iterations"). 1: with detect_iterations, follow the allocations to
  // find a period (detectedPeriod()); 2: with find_cuts, find where its idle windows end
  // (detectedIterations()); 3: with cut_at, cut the iterations there.
  bool detect_iterations = true;
  std::optional<DetectedPeriod> find_cuts{};
  std::optional<DetectedIterations> cut_at{};
};

// A four-verb aggregator in the memray style: construct, add every record, finish once.
// Records must come in timestamp order (trace::TimeOrderReader guarantees it; definitions before
// the timed records that use them). Memory is proportional to the live allocations, the interned
// data and the per-iteration summaries, never to the number of events. add() does O(1) work per
// event; iteration boundaries cost O(slots + sites).
class Analysis {
 public:
  // Throws memfloor::Error when the iteration pattern is not a valid regex, or a site pattern is
  // empty.
  explicit Analysis(AnalysisOptions options);

  // Throws memfloor::Error only on a trace no analysis can hold (more than Timeline::kMaxSlots
  // device/memory-kind pairs); every other oddity is counted in Report::anomalies.
  void add(const trace::Record& record);
  // The same for a block of events (trace::TimeOrderReader::nextBatch): the fast way in.
  void add(std::span<const trace::Event* const> events);

  // Ends the replay at the last timestamp seen (or the trailer's, if later) and builds the report.
  // Call once.
  Report finish(const TraceInput& input);

  // After finish(). With detect_iterations and no iteration marker in the trace: the period of its
  // allocations, if they have one (analysis/period_detector.h). With find_cuts: where to cut
  // iterations, if the period has at least two cycles (analysis/idle_cuts.h).
  const std::optional<DetectedPeriod>& detectedPeriod() const { return period_; }
  const std::optional<DetectedIterations>& detectedIterations() const { return iterations_; }
  // After finish(): iteration markers matched only after step records had made iterations, so
  // the replay must be redone with markers_only (markers win).
  bool needsMarkersReplay() const { return tracker_.markersAfterSteps() > 0; }

 private:
  void on(const trace::StringDef& r) { symbols_.add(r); }
  void on(const trace::ModuleDef& r) { symbols_.add(r); }
  void on(const trace::FrameDef& r) { symbols_.add(r); }
  void on(const trace::StackDef& r);
  void on(const trace::ProcessInfo& r) { process_ = r, has_process_ = true; }
  void on(const trace::DeviceInfo& r) { devices_.push_back(r); }
  void on(const trace::Property& r);
  void usePattern(const trace::Property& r);  // the trace's hook.iteration_pattern
  void on(const trace::Alloc& r) { on(trace::toEvent(r)); }
  void on(const trace::Free& r) { on(trace::toEvent(r)); }
  void on(const trace::PoolEvent& r) { on(trace::toEvent(r)); }
  void on(const trace::Marker& r) { on(trace::toEvent(r)); }
  void on(const trace::Census& r) { on(trace::toEvent(r)); }
  void on(const trace::Held& r) { on(trace::toEvent(r)); }
  void on(const trace::Step& r) { on(trace::toEvent(r)); }
  void on(const trace::Event& e);
  // The per-event path, inlined into the replay's loop (analysis.cpp); the rest out of it.
  // kPlain: no ledger and no allocator block seen (add() says which).
  template <bool kWatching, bool kPlain>
  void replay(std::span<const trace::Event* const> events);
  template <bool kWatching, bool kPlain>
  [[gnu::always_inline]] inline void dispatch(const trace::Event& e);
  template <bool kPlain>
  [[gnu::always_inline]] inline void allocate(const trace::Event& e);
  template <bool kPlain>
  [[gnu::always_inline]] inline void release(const trace::Event& e);
  [[gnu::noinline]] void dispatchOther(const trace::Event& e);
  [[gnu::noinline]] void addSite(uint32_t site, uint16_t slot, trace::StackId stack);
  void onMarker(const trace::Event& e);
  void onCensus(const trace::Event& e);
  void onStep(const trace::Event& e);
  void onBoundary(Boundary boundary);
  void stopDetecting();
  void watch(const trace::Event& e);
  void on(const trace::Dropped& r);
  void on(const trace::Trailer& r);

  void noteTime(uint64_t timestamp) {
    if (timestamp < last_ns_) ++out_of_order_;
    if (!seen_time_) first_ns_ = timestamp, seen_time_ = true;
    if (timestamp > last_ns_) last_ns_ = timestamp;
  }
  // Adds a record's size to one of the run's sums; past 2^64 - 1 the byte sums of the run (Tally,
  // live bytes) wrap around, and the report says so (Report::overflow).
  void countBytes(uint64_t& sum, uint64_t size) {
    if (__builtin_add_overflow(sum, size, &sum)) [[unlikely]]
      overflow_ = true;
  }
  template <bool kPlain>
  [[gnu::always_inline]] inline void close(const LiveAlloc& alloc, uint64_t timestamp);
  [[gnu::noinline]] void closeMarked(const LiveAlloc& alloc, uint64_t timestamp);
  [[gnu::always_inline]] inline void checkBlock(const trace::Event& block);
  [[gnu::noinline]] void seeBlocks();
  void beginIteration();
  void endIteration();
  void fillMetadata(Report& report) const;
  void fillIterations(Report& report, const std::vector<uint16_t>& order);
  void fillTrends(Report& report, const std::vector<uint16_t>& order) const;
  void fillSteady(Report& report, const std::vector<uint16_t>& order) const;
  // Report::explained, and per window and memory (in `order`) the bytes explained: empty
  // without links.
  std::vector<std::vector<Tally>> fillExplained(Report& report, const std::vector<uint16_t>& order);
  std::vector<bool> keptWhole(const Report& report, const std::vector<uint16_t>& order,
                              const HeldByWindows& held) const;
  void nameSites(Report& report, const std::set<trace::StackId>& listed_stacks,
                 std::set<trace::StackId> peak_stacks);
  const std::vector<uint32_t>& linksOf(uint32_t site);

  AnalysisOptions options_;
  std::string iteration_pattern_;  // the one naming the iterations: the option's, or the trace's
  symbols::Symbols symbols_;
  IterationTracker tracker_;
  Timeline timeline_;
  LiveSet live_;
  Retention retention_;
  PeakComposition peaks_;
  ModuleGroups modules_;            // the sites' modules, which the peaks group by
  std::vector<LiveSeries> series_;  // by slot
  std::unordered_map<uint32_t, std::vector<uint32_t>> site_links_;  // by site, filled at finish
  symbols::SiteNamer site_namer_;                                   // names the listed sites

  uint32_t known_sites_ = 0;  // Retention's sites that peaks_ and series_ are sized for
  // Attribution of an allocation made now (docs/design.md, "Retention").
  uint32_t birth_window_ = 0;
  uint8_t birth_flags_ = kBornPersistent;

  bool has_process_ = false;
  trace::ProcessInfo process_;
  std::vector<trace::DeviceInfo> devices_;
  std::vector<trace::Property> properties_;
  RecentAnomalies recent_;  // for a cut trace's last flush period
  // Blocks inside segments (docs/design.md, "Allocator blocks"): the device allocations are kept
  // by address only from the first block on, so a trace without blocks pays one test per event.
  bool blocks_seen_ = false;
  SegmentMap segments_;
  uint64_t blocks_outside_segments_ = 0;
  uint64_t last_memory_ns_ = 0;  // the last alloc, free or pool event
  uint64_t dropped_cupti_ = 0, dropped_writer_ = 0;
  RecordCounts records_;
  uint64_t out_of_order_ = 0;
  // Every allocation's, free's and held storage's size, summed: each byte figure of the run is a
  // sum of some of them, so none can have wrapped while these have not.
  uint64_t allocated_bytes_ = 0, freed_bytes_ = 0, held_bytes_ = 0;
  bool overflow_ = false;
  bool seen_time_ = false;
  uint64_t first_ns_ = 0, last_ns_ = 0, trailer_end_ns_ = 0;
  bool saw_trailer_ = false;  // the writer closed the trace: its last records are all there
  bool finished_ = false;

  // Period detection, last: the replay's hot members come first.
  bool watching_ = false;                     // dispatch() calls watch(): one of the three
  std::unique_ptr<PeriodDetector> detector_;  // detect_iterations, until a marker iteration
  std::unique_ptr<IdleCuts> idle_cuts_;       // find_cuts
  size_t next_cut_ = 0;                       // into options_.cut_at->cuts
  std::optional<DetectedPeriod> period_;
  std::optional<DetectedIterations> iterations_;

  Holders holders_;  // what the censuses found holding the live memory (rare records)
  RecordWarnings warnings_;
};

// The whole analysis of one trace: one replay, or three for detected iterations (AnalysisOptions).
// feed(Analysis&) adds every record of the trace and returns what the reader knows of it; it is
// called once per replay.
template <typename Feed>
Report analyzeReplays(const AnalysisOptions& options, Feed&& feed) {
  AnalysisOptions next = options;
  auto replay = [&feed](const AnalysisOptions& o, auto&& then) {
    Analysis analysis(o);
    const TraceInput input = feed(analysis);
    Report report = analysis.finish(input);
    then(analysis);
    return report;
  };
  bool markers_replay = false;
  Report report = replay(options, [&](const Analysis& a) {
    next.find_cuts = a.detectedPeriod();
    markers_replay = a.needsMarkersReplay();
  });
  if (markers_replay) {
    // Step records made the iterations before the first iteration marker came: markers win.
    next.markers_only = true;
    return replay(next, [](const Analysis&) {});
  }
  if (!next.find_cuts) return report;
  // No iteration marker, but the allocations repeat with a period: find its idle windows, then
  // replay cutting iterations there.
  replay(next, [&](const Analysis& a) { next.cut_at = a.detectedIterations(); });
  if (!next.cut_at) return report;
  return replay(next, [](const Analysis&) {});
}

}  // namespace memfloor::analysis
