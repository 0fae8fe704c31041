// Analysis: the replay (per-record dispatch, pairing, iteration boundaries).
#include "analysis/analysis.h"

#include <fmt/format.h>

#include <algorithm>
#include <cassert>
#include <charconv>
#include <string_view>

#include "analysis/allocation_ledger.h"
#include "common/error.h"
#include "common/units.h"

namespace memfloor::analysis {
namespace {

constexpr auto kDeviceKind = static_cast<uint8_t>(trace::MemoryKind::kDevice);
constexpr auto kBlockKind = static_cast<uint8_t>(trace::MemoryKind::kBlock);
constexpr std::string_view kCompiledProperty = "python.compiled:";  // + the generated file
constexpr std::string_view kIterationPatternProperty = "hook.iteration_pattern";

}  // namespace

Analysis::Analysis(AnalysisOptions options)
    : options_(std::move(options)),
      iteration_pattern_(options_.iteration_pattern),
      // Replays of detected iterations cut them alone, even if markers appeared since the first
      // (a trace still being written): no marker defines an iteration there.
      tracker_(options_.find_cuts || options_.cut_at
                   ? std::nullopt
                   : std::optional<std::string_view>(options_.iteration_pattern),
               options_.iteration_domain),
      retention_(options_.top_sites),
      peaks_(options_.top_sites),
      site_namer_(options_.site_patterns) {
  tracker_.keepRanges(options_.keep_ranges);
  tracker_.warnInto(&warnings_);
  if (options_.ledger != nullptr) options_.ledger->clear();  // each replay fills it afresh
  if (options_.markers_only) tracker_.markersOnly();
  retention_.keepWindowSites(!options_.links.empty());
  if (!options_.cut_at) {  // a cutting replay needs nothing but next_cut_
    if (options_.find_cuts) {
      idle_cuts_ = std::make_unique<IdleCuts>(*options_.find_cuts);
    } else if (options_.detect_iterations) {
      detector_ = std::make_unique<PeriodDetector>();
    }
  }
  watching_ = options_.cut_at.has_value() || idle_cuts_ || detector_;
}

void Analysis::add(const trace::Record& record) {
  assert(!finished_ && "add after finish");
  ++records_.total;
  std::visit([this](const auto& r) { on(r); }, record);
}

void Analysis::add(std::span<const trace::Event* const> events) {
  assert(!finished_ && "add after finish");
  if (events.empty()) return;
  records_.total += events.size();
  // A block is in timestamp order (the reader's contract): its ends are all noteTime needs.
  noteTime(events.front()->timestamp);
  noteTime(events.back()->timestamp);
  // Only a replay that detects iterations watches the events, and it stops for good once markers
  // or steps make them: a block that starts without watching is replayed without the test. Most
  // replays keep no ledger and see no allocator block: theirs is the plain path, without either's
  // tests (replay() leaves it at a first block).
  const bool plain = options_.ledger == nullptr && !blocks_seen_;
  if (watching_) {
    plain ? replay<true, true>(events) : replay<true, false>(events);
  } else {
    plain ? replay<false, true>(events) : replay<false, false>(events);
  }
}

template <bool kWatching, bool kPlain>
void Analysis::replay(std::span<const trace::Event* const> events) {
  // The live set's probes miss the cache (its addresses are hashed): each event's probe is started
  // kPrefetchAhead events before it, so that the misses overlap the work between them.
  constexpr size_t kPrefetchAhead = 8;
  const size_t n = events.size();
  for (size_t i = 0; i < std::min(n, kPrefetchAhead); ++i) live_.prefetch(events[i]->address);
  // Event i; false where it left the plain path (an allocator block: the events from it on were
  // replayed on the other).
  auto step = [&](size_t i) __attribute__((always_inline)) {
    const trace::Event& e = *events[i];
    if (kPlain && e.type == trace::EventType::kAlloc && e.kind == kBlockKind) [[unlikely]] {
      replay<kWatching, false>(events.subspan(i));
      return false;
    }
    dispatch<kWatching, kPlain>(e);
    return true;
  };
  size_t i = 0;
  for (; i + kPrefetchAhead < n; ++i) {
    live_.prefetch(events[i + kPrefetchAhead]->address);
    if (!step(i)) return;
  }
  for (; i < n; ++i) {  // the last ones: already prefetched
    if (!step(i)) return;
  }
}

void Analysis::on(const trace::Event& e) {
  noteTime(e.timestamp);
  dispatch<true, false>(e);
}

template <bool kWatching, bool kPlain>
void Analysis::dispatch(const trace::Event& e) {
  // Tests, not a switch: allocations and frees alternate in patterns that conditional branches
  // predict well and an indirect jump does not.
  if (kWatching && watching_) [[unlikely]]
    watch(e);  // first: an iteration may begin here
  if (e.type == trace::EventType::kAlloc) {
    allocate<kPlain>(e);
  } else if (e.type == trace::EventType::kFree) [[likely]] {
    release<kPlain>(e);
  } else {
    dispatchOther(e);
  }
}

void Analysis::dispatchOther(const trace::Event& e) {
  if (e.type == trace::EventType::kMarker) {
    onMarker(e);
  } else if (e.type == trace::EventType::kHeld) {
    countBytes(held_bytes_, e.size);
    holders_.onHeld(e, live_);  // not memory: what holds it
  } else if (e.type == trace::EventType::kCensus) {
    onCensus(e);
  } else if (e.type == trace::EventType::kStep) {
    onStep(e);
  } else {
    ++records_.pool_events;
    last_memory_ns_ = e.timestamp;
  }
}

template <bool kPlain>
void Analysis::allocate(const trace::Event& a) {
  ++records_.allocs;
  countBytes(allocated_bytes_, a.size);
  uint16_t slot = timeline_.slotFor(a.device, a.kind);
  const uint32_t site = retention_.siteFor(slot, a.stack);
  if (site >= known_sites_) [[unlikely]]
    addSite(site, slot, a.stack);
  last_memory_ns_ = a.timestamp;
  // The replaced allocation is closed first: its lost free happened before this allocation.
  LiveAlloc& alloc = live_.openAt(slot, a.address, [&](const LiveAlloc& replaced) {
    recent_.add(a.timestamp, true, replaced.size);
    close<kPlain>(replaced, a.timestamp);
  });
  alloc.size = a.size;
  alloc.site = site;
  alloc.first_window = birth_window_;
  alloc.flags = birth_flags_;
  if constexpr (!kPlain) {
    if (options_.ledger != nullptr) [[unlikely]]
      options_.ledger->onAlloc(a, alloc);
    if (a.kind == kBlockKind) {
      checkBlock(a);
    } else if (blocks_seen_ && a.kind == kDeviceKind) {
      segments_.open(a.device, a.address, a.size);
      alloc.flags |= kSegment;
    }
  }
  peaks_.onAlloc(alloc);
  if (timeline_.onAlloc(slot, a.size, a.timestamp)) peaks_.onMaximum(slot, a.timestamp);
  series_[slot].recordRise(a.timestamp, timeline_.slot(slot).live);
}

// A site's first allocation (a new slot's too): what the per-event path then finds sized.
void Analysis::addSite(uint32_t site, uint16_t slot, trace::StackId stack) {
  known_sites_ = site + 1;
  peaks_.addSite(site, slot);
  peaks_.setModule(site, modules_.groupOf(symbols_.modulePath(stack)));
  if (slot >= series_.size()) series_.resize(slot + 1u, LiveSeries(options_.timeline_points));
}

// Detected iterations (the three replays of AnalysisOptions), for every event before it counts.
void Analysis::watch(const trace::Event& e) {
  if (e.type == trace::EventType::kMarker || e.type == trace::EventType::kCensus ||
      e.type == trace::EventType::kHeld || e.type == trace::EventType::kStep) {
    return;
  }
  const uint64_t ordinal = records_.allocs + records_.frees + records_.pool_events;
  const uint64_t previous_ns = ordinal > 0 ? last_memory_ns_ : e.timestamp;
  const bool alloc = e.type == trace::EventType::kAlloc;
  const MemoryKey key = Timeline::keyOf(e.device, e.kind);
  if (detector_ && alloc) detector_->onAlloc(key, e.stack, e.size, e.timestamp);
  if (idle_cuts_) {
    const DetectedPeriod& p = *options_.find_cuts;
    const bool anchor = alloc && key == p.key && e.stack == p.stack && e.size == p.size;
    idle_cuts_->onMemoryEvent(ordinal, e.timestamp, previous_ns, timeline_.liveTotal(), anchor);
  }
  if (!options_.cut_at) return;
  const std::vector<uint64_t>& cuts = options_.cut_at->cuts;
  if (next_cut_ == cuts.size() || cuts[next_cut_] != ordinal) return;
  ++next_cut_;
  // The iteration before ends with the last event before the quiet gap that this one ends.
  if (tracker_.inIteration()) {
    tracker_.endAt(previous_ns);
    endIteration();
  }
  tracker_.beginAt(e.timestamp);
  beginIteration();
}

template <bool kPlain>
void Analysis::release(const trace::Event& f) {
  ++records_.frees;
  countBytes(freed_bytes_, f.size);
  last_memory_ns_ = f.timestamp;
  uint16_t slot = timeline_.findSlot(f.device, f.kind);
  if (slot == kNoSlot) {
    live_.unmatchedFree(f.size);
    recent_.add(f.timestamp, false, f.size);
    return;
  }
  // Inlined whole: the free's path is one piece of code with the loop's.
  if (!live_.close(
          slot, f.address, f.size, [&](const LiveAlloc& closed) __attribute__((always_inline)) {
            close<kPlain>(closed, f.timestamp);
          })) {
    recent_.add(f.timestamp, false, f.size);
  }
}

// A block must lie in segments its device has live. The segments are collected from the live set
// when the first block comes (what was allocated before it), then kept up to date.
void Analysis::checkBlock(const trace::Event& block) {
  if (!blocks_seen_) [[unlikely]]
    seeBlocks();
  if (!segments_.covers(block.device, block.address, block.size)) ++blocks_outside_segments_;
}

void Analysis::seeBlocks() {
  blocks_seen_ = true;
  std::vector<LiveAlloc::Key> segments;
  live_.forEach([&](const LiveAlloc& live) {
    const MemoryKey& key = timeline_.slot(live.slot).key;
    if (key.kind != trace::MemoryKind::kDevice) return;
    segments_.open(key.device, live.address, live.size);
    segments.push_back(live.key());
  });
  for (const LiveAlloc::Key& k : segments) live_.addFlag(k.slot, k.address, kSegment);
}

// A census matches its storages to its device's allocated level: its blocks where it has blocks,
// else its device allocations (docs/design.md, "Holders").
void Analysis::onCensus(const trace::Event& e) {
  const trace::Census census = trace::toCensus(e);
  if (tracker_.steps() > 0 && (census.step == 0 || census.step > tracker_.lastStep())) {
    warnings_.add(
        fmt::format("census t={} dev={} step={}: no step record of that number came "
                    "before it; it is placed by its time alone",
                    census.timestamp, census.device, census.step));
  }
  const uint16_t blocks = timeline_.findSlot({e.device, trace::MemoryKind::kBlock});
  const uint16_t slot =
      blocks != kNoSlot ? blocks : timeline_.findSlot({e.device, trace::MemoryKind::kDevice});
  holders_.onCensus(e, slot, blocks != kNoSlot, tracker_.started(), live_);
}

template <bool kPlain>
void Analysis::close(const LiveAlloc& alloc, uint64_t timestamp) {
  if (!kPlain && options_.ledger != nullptr) [[unlikely]]
    options_.ledger->onClose(alloc, timestamp, static_cast<uint32_t>(retention_.windowCount()));
  if ((alloc.flags & (kHeldByCensus | kSegment)) != 0) [[unlikely]]
    closeMarked(alloc, timestamp);
  timeline_.onFree(alloc.slot, alloc.size);
  retention_.onFree(alloc);
  peaks_.onFree(alloc);
  series_[alloc.slot].recordFall(timestamp, timeline_.slot(alloc.slot).live);
}

// The end of an allocation that a census found holding storages, or of a segment.
void Analysis::closeMarked(const LiveAlloc& alloc, uint64_t timestamp) {
  if ((alloc.flags & kHeldByCensus) != 0) holders_.onClose(alloc, timestamp);
  if ((alloc.flags & kSegment) != 0) {
    segments_.close(timeline_.slot(alloc.slot).key.device, alloc.address);
  }
}

void Analysis::onMarker(const trace::Event& e) {
  ++records_.markers;
  onBoundary(tracker_.onMarker(trace::toMarker(e), symbols_));
}

// A Python process that steps an optimizer never falls back to a detected period, even where its
// step records make no iteration (docs/design.md, "Iterations").
void Analysis::onStep(const trace::Event& e) {
  ++records_.steps;
  if (options_.markers_only) return;
  stopDetecting();
  onBoundary(tracker_.onStep(trace::toStep(e)));
}

void Analysis::stopDetecting() {
  if (!detector_) return;
  detector_.reset();
  watching_ = options_.cut_at.has_value() || idle_cuts_;
}

void Analysis::onBoundary(Boundary boundary) {
  switch (boundary) {
    case Boundary::kBegin:
      beginIteration();
      break;
    case Boundary::kEnd:
      endIteration();
      break;
    case Boundary::kNone:
      break;
  }
}

void Analysis::on(const trace::StackDef& r) {
  if (r.frames.size() > trace::kMaxStackFrames) {  // the trace's name is added by the replay
    throw Error(fmt::format("stack {}: {} frames, more than the {} a trace's stack may hold", r.id,
                            r.frames.size(), trace::kMaxStackFrames));
  }
  symbols_.add(r);
}

void Analysis::on(const trace::Property& r) {
  properties_.push_back(r);
  const std::string_view key = symbols_.string(r.key);
  // Written by the companion (companion/memfloor/compiled_names.py): what a generated file holds.
  if (key.starts_with(kCompiledProperty)) {
    site_namer_.nameCompiled(std::string(key.substr(kCompiledProperty.size())),
                             std::string(symbols_.string(r.value)));
  }
  // Written where a trace is made from another record (trace/torch_snapshot.cpp): what it lost.
  if (key == trace::kWarningProperty) warnings_.add(std::string(symbols_.string(r.value)));
  // Written by the hook (runtime_hook/session.cpp): the pattern the program ran with.
  if (key == kIterationPatternProperty && options_.recorded_pattern) usePattern(r);
  // Written by the hook (runtime_hook/session.cpp): how often CUPTI delivers memory records.
  if (key == "hook.flush_period_ms") {
    const std::string_view value = symbols_.string(r.value);
    uint64_t ms = 0;
    const auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), ms);
    if (error == std::errc{} && end == value.data() + value.size() &&
        ms < UINT64_MAX / units::kNsPerMs) {
      recent_.setPeriod(ms * units::kNsPerMs);
    }
  }
}

void Analysis::usePattern(const trace::Property& r) {
  const std::string_view pattern = symbols_.string(r.value);
  if (pattern.empty() || pattern == iteration_pattern_) return;
  std::string why;
  if (tracker_.usePattern(pattern, why)) {
    iteration_pattern_ = pattern;
  } else if (!options_.find_cuts && !options_.cut_at) {  // a cutting replay names no iteration
    warnings_.add("the trace's iteration pattern '" + std::string(pattern) + "' is not used (" +
                  why + "): iterations are named by '" + iteration_pattern_ + "'");
  }
}

void Analysis::on(const trace::Dropped& d) {
  (d.source == trace::DropSource::kWriter ? dropped_writer_ : dropped_cupti_) += d.count;
}

void Analysis::on(const trace::Trailer& t) {
  trailer_end_ns_ = std::max(trailer_end_ns_, t.end_timestamp);
  saw_trailer_ = true;
}

// Iteration i (0-based) has begun: started() == i + 1. What is allocated during it can first be
// retained in window i; it is persistent when i precedes the first counted iteration.
void Analysis::beginIteration() {
  uint32_t started = tracker_.started();
  stopDetecting();  // markers or steps found: nothing to detect
  if (started > 1) retention_.endWindow(timeline_);
  timeline_.beginIteration();
  peaks_.beginIteration(started - 1, tracker_.iterations().back().start_ns);
  birth_window_ = started - 1;
  birth_flags_ = started <= options_.warmup_iterations ? kBornPersistent : 0;
  peaks_.setBirth(birth_window_, birth_flags_);
}

// Iteration i has ended; window i begins. What is allocated in it belongs to window i + 1 on, and
// is persistent while iteration `warmup` has not begun.
void Analysis::endIteration() {
  uint32_t started = tracker_.started();
  timeline_.endIteration();
  peaks_.endIteration();
  retention_.beginWindow(started - 1, [this](uint32_t site) { return peaks_.liveOf(site); });
  if (options_.ledger != nullptr) options_.ledger->onIterationEnd();
  birth_window_ = started;
  birth_flags_ = static_cast<uint8_t>(
      (started <= options_.warmup_iterations ? kBornPersistent : 0) | kBornInWindow);
  peaks_.setBirth(birth_window_, birth_flags_);
}

Report Analysis::finish(const TraceInput& input) {
  assert(!finished_ && "finish called twice");
  finished_ = true;
  uint64_t end_ns = std::max(last_ns_, trailer_end_ns_);
  if (tracker_.finish(end_ns)) {
    // The trace ended inside an iteration: what is live then is in flight, not retained.
    timeline_.endIteration();
    peaks_.endIteration();
    retention_.skipWindow();
  } else if (tracker_.started() > 0) {
    retention_.endWindow(timeline_);
  }
  timeline_.finish();
  if (options_.resolver != nullptr) symbols_.resolve(*options_.resolver);
  if (detector_) period_ = detector_->choose();
  if (idle_cuts_) iterations_ = idle_cuts_->finish();

  Report report;
  report.input = input;
  report.first_ns = first_ns_;
  report.end_ns = end_ns;
  report.records = records_;
  report.iteration_pattern = iteration_pattern_;
  report.warmup_iterations = options_.warmup_iterations;
  fillMetadata(report);

  // Report rows are ordered by (device, kind), not by first appearance.
  std::vector<uint16_t> order(timeline_.slotCount());
  for (size_t i = 0; i < order.size(); ++i) order[i] = static_cast<uint16_t>(i);
  std::sort(order.begin(), order.end(), [this](uint16_t a, uint16_t b) {
    const MemoryKey& x = timeline_.slot(a).key;
    const MemoryKey& y = timeline_.slot(b).key;
    return x.device != y.device ? x.device < y.device : x.kind < y.kind;
  });
  for (uint16_t s : order) {
    const SlotTimeline& t = timeline_.slot(s);
    report.memory.push_back({t.key, t.peak, t.peak_ns, t.live, t.allocated, t.freed});
  }
  fillIterations(report, order);  // with the steady floors and explained bytes it needs
  fillTrends(report, order);
  for (uint16_t s : order) {
    report.timeline.push_back(s < series_.size() ? series_[s].finish(timeline_.slot(s).key)
                                                 : TimelineSeries{timeline_.slot(s).key, 0, {}});
  }
  report.ranges = tracker_.ranges();
  return report;
}

}  // namespace memfloor::analysis
