// Analysis: assembling the Report from the replay's parts once the trace has ended.
#include <algorithm>
#include <cassert>
#include <map>
#include <set>
#include <string>
#include <unordered_map>

#include "analysis/allocation_ledger.h"
#include "analysis/analysis.h"
#include "analysis/trend.h"
#include "report/iteration_ranges.h"
#include "report/levels.h"

namespace memfloor::analysis {
namespace {

// A peak for the report: its sites by stack (named later), their stacks added to `stacks`.
PeakSnapshot snapshotOf(const PeakComposition::Peak& peak, const Retention& retention,
                        const ModuleGroups& modules, std::set<trace::StackId>& stacks) {
  PeakSnapshot out{peak.at_ns, peak.live, {}};
  for (const auto& [site_index, tally] : peak.sites) {
    const trace::StackId stack = retention.site(site_index).stack;
    out.sites.push_back({stack, {}, tally});
    if (stack != trace::kNoId) stacks.insert(stack);
  }
  for (const auto& [group, tally] : peak.modules)
    out.modules.push_back({modules.name(group), tally});
  return out;
}

// The end of the run: of its last complete iteration (none: the trace has none).
std::optional<uint64_t> runEnd(const std::vector<IterationSpan>& spans) {
  for (auto it = spans.rbegin(); it != spans.rend(); ++it) {
    if (it->complete) return it->end_ns;
  }
  return std::nullopt;
}

// Holders listed per census, per retaining site listed per window (--top).
constexpr uint32_t kHoldersPerSite = 4;

// The name of a device's module globals: made when CUDA loads a module, by no call of the
// program's, so without a stack and with nothing to look for in one.
constexpr std::string_view kModuleGlobals = "(module globals: __device__ variables)";

}  // namespace

void Analysis::fillMetadata(Report& report) const {
  ProcessMeta& p = report.process;
  p.present = has_process_;
  if (has_process_) {
    p.pid = process_.pid;
    p.start_unix_ns = process_.start_unix_ns;
    p.host = symbols_.string(process_.host);
    p.command_line = symbols_.string(process_.command_line);
    p.rank = process_.rank;
    p.local_rank = process_.local_rank;
    p.world_size = process_.world_size;
  }
  // A device described twice keeps its last description; in the device's order.
  std::map<uint32_t, const trace::DeviceInfo*> last;
  for (const trace::DeviceInfo& d : devices_) last[d.device] = &d;
  p.devices.clear();
  for (const auto& [device, d] : last) {
    p.devices.push_back({device, std::string(symbols_.string(d->name)), d->total_memory});
  }
  for (const trace::Property& prop : properties_) {
    p.properties[std::string(symbols_.string(prop.key))] = symbols_.string(prop.value);
  }

  report.dropped_cupti = dropped_cupti_;
  report.dropped_writer = dropped_writer_;
  report.overflow = overflow_;
  Anomalies& a = report.anomalies;
  a.unmatched_frees = live_.stats().unmatched_frees;
  a.double_allocations = live_.stats().double_allocations;
  a.size_mismatches = live_.stats().size_mismatches;
  a.unmatched_range_ends = tracker_.unmatchedEnds();
  a.unclosed_ranges = tracker_.unclosedRanges();
  a.out_of_order_records = out_of_order_;
  a.blocks_outside_segments = blocks_outside_segments_;
  a.warnings = warnings_.kept();
  a.warnings_left_out = warnings_.leftOut();
  // Cut short (no trailer): up to one flush period before the last memory record may be missing.
  // A trace whose trailer was read ended cleanly, though a chunk before it was lost or repeated.
  if (!saw_trailer_ && recent_.period() > 0 && last_memory_ns_ > 0) {
    const uint64_t period = recent_.period();
    a.cut_tail = recent_.since(last_memory_ns_ > period ? last_memory_ns_ - period : 0);
  }
}

void Analysis::fillIterations(Report& report, const std::vector<uint16_t>& order) {
  const std::vector<IterationSpan>& spans = tracker_.iterations();
  if (spans.empty()) {
    report.iteration_source = IterationSource::kUnknown;
  } else if (options_.cut_at) {
    report.iteration_source = IterationSource::kDetected;
    report.detection = options_.cut_at->period;
  } else if (tracker_.origin() == IterationOrigin::kSteps) {
    report.iteration_source = IterationSource::kSteps;
  } else {
    report.iteration_source = IterationSource::kMarkers;
  }
  const std::vector<bool> reserved = reservedSlots(timeline_);
  std::vector<RetainedWindow> retained = retention_.finish(live_, reserved);
  const NeverFreed never_freed = retention_.neverFreed(live_, reserved);
  if (options_.ledger != nullptr) {
    options_.ledger->classify(never_freed, static_cast<uint32_t>(retention_.windowCount()));
  }
  std::vector<std::vector<PeakComposition::Peak>> peaks =
      peaks_.finish(never_freed, timeline_.slotCount());
  assert(peaks.size() == spans.size() && "an iteration without its peak");
  HeldByWindows held = holders_.finish(spans, {&symbols_, &retention_, &never_freed, runEnd(spans),
                                               kHoldersPerSite * options_.top_sites});
  report.census = std::move(held.count);
  fillSteady(report, order);
  const std::vector<std::vector<Tally>> explained = fillExplained(report, order);
  IterationCompactor compactor(keptWhole(report, order, held), report.explained,
                               options_.compact_iterations);
  std::set<trace::StackId> stacks, peak_stacks;

  // Row by row, each row's parts released once it is made: a long run holds only what it keeps.
  for (size_t i = 0; i < spans.size(); ++i) {
    IterationRow row;
    row.index = static_cast<uint32_t>(i + 1);
    row.name = spans[i].name;
    row.start_ns = spans[i].start_ns;
    row.end_ns = spans[i].end_ns;
    row.complete = spans[i].complete;
    row.warmup = i < options_.warmup_iterations;
    row.idle_start_ns = spans[i].end_ns;
    row.idle_final = i + 1 == spans.size();
    row.idle_end_ns = row.idle_final ? report.end_ns : spans[i + 1].start_ns;
    for (size_t p = 0; p < order.size(); ++p) {
      const uint16_t s = order[p];
      const SlotTimeline& t = timeline_.slot(s);
      const SlotPhases& phases = timeline_.phases(s);
      const Phase& it = phases.iterations[i];
      const Phase& w = phases.windows[i];
      IterationMemory& m = row.memory.emplace_back();
      m.key = t.key;
      m.live_at_start = it.live_at_start;
      m.live_at_end = it.live_at_end;
      m.peak = it.peak;
      m.floor = it.floor;
      m.allocated = it.allocated;
      m.freed = it.freed;
      m.idle = {w.floor,
                w.peak,
                w.live_at_end,
                w.allocated,
                w.freed,
                retained[i].per_slot[s],
                explained.empty() ? Tally{} : explained[i][p]};
      m.peak_composition = snapshotOf(peaks[i][s], retention_, modules_, peak_stacks);
    }
    for (const auto& [site_index, tally] : retained[i].top) {
      const Site& site = retention_.site(site_index);
      row.top_sites.push_back(
          {timeline_.slot(site.slot).key, site.stack, {}, tally, linksOf(site_index)});
      if (site.stack != trace::kNoId) stacks.insert(site.stack);
    }
    row.held_by = std::move(held.windows[i]);
    retained[i] = {};
    std::vector<PeakComposition::Peak>().swap(peaks[i]);
    compactor.add(std::move(row), report);
  }
  compactor.finish(report);
  nameSites(report, stacks, std::move(peak_stacks));
}

// Sites, and the detected period's allocation, are named together: by their user frames, told
// apart within the listed stacks (symbols/site_namer.h). The sites at the peaks take the same
// names where their stacks are listed there too; the others are named with the listed stacks,
// which keep their names: the peaks list stacks of every allocation. The holders' blocks are named
// the same way after the peaks, whose names they do not change either.
void Analysis::nameSites(Report& report, const std::set<trace::StackId>& listed_stacks,
                         std::set<trace::StackId> peak_stacks) {
  std::set<trace::StackId> stacks = listed_stacks;
  if (report.detection && report.detection->stack != trace::kNoId) {
    stacks.insert(report.detection->stack);
  }
  std::vector<trace::StackId> listed(stacks.begin(), stacks.end());
  listed.push_back(trace::kNoId);
  std::unordered_map<trace::StackId, std::string> names = symbols_.siteNames(listed, site_namer_);
  auto nameOf = [&names](const MemoryKey& key, trace::StackId stack) {
    return key.kind == trace::MemoryKind::kDeviceStatic && stack == trace::kNoId
               ? std::string(kModuleGlobals)
               : names.at(stack);
  };
  for (IterationRow& row : report.iterations) {
    for (RetainedSite& site : row.top_sites) site.where = nameOf(site.key, site.stack);
  }
  if (report.detection) report.detection->where = names.at(report.detection->stack);
  // Each later group is named among the stacks named before it, and only adds the new names.
  auto nameMore = [&](const std::set<trace::StackId>& more) {
    const size_t known = listed.size();
    for (trace::StackId id : more) {
      if (names.count(id) == 0) listed.push_back(id);
    }
    if (listed.size() == known) return;
    for (auto& [id, name] : symbols_.siteNames(listed, site_namer_)) names.try_emplace(id, name);
  };
  nameMore(peak_stacks);
  for (IterationRow& row : report.iterations) {
    for (IterationMemory& m : row.memory) {
      for (PeakSite& site : m.peak_composition->sites) site.where = nameOf(m.key, site.stack);
    }
  }
  std::set<trace::StackId> holder_stacks;
  for (const IterationRow& row : report.iterations) {
    for (const HeldBy& census : row.held_by) {
      for (const Holder& h : census.holders) {
        if (h.stack != trace::kNoId) holder_stacks.insert(h.stack);
      }
    }
  }
  nameMore(holder_stacks);
  for (IterationRow& row : report.iterations) {
    for (HeldBy& census : row.held_by) {
      for (Holder& h : census.holders) h.where = names.at(h.stack);
    }
  }
  stacks.insert(peak_stacks.begin(), peak_stacks.end());
  stacks.insert(holder_stacks.begin(), holder_stacks.end());
  for (trace::StackId id : stacks) report.stacks.push_back(symbols_.stack(id));
}

// Trends fit the idle floors of the counted windows that another iteration ends: the final
// window ends with the trace (teardown, or a kill) and says nothing about growth per iteration.
// A reserved level's trend is reported, and left out of the verdict: a caching allocator's
// segments grow while it warms up, and what the program keeps is its allocated level's.
void Analysis::fillTrends(Report& report, const std::vector<uint16_t>& order) const {
  size_t windows = tracker_.iterations().size();
  size_t first = std::min<size_t>(options_.warmup_iterations, windows);
  size_t last = windows == 0 ? 0 : windows - 1;  // exclusive: drops the final window
  std::vector<uint64_t> floors;
  bool any_stable = false, any_growing = false;
  for (uint16_t s : order) {
    const SlotTimeline& t = timeline_.slot(s);
    const std::vector<Phase>& closed = timeline_.phases(s).windows;
    floors.clear();
    for (size_t i = first; i < last; ++i) floors.push_back(closed[i].floor);
    Trend trend = fitTrend(t.key, floors, static_cast<uint32_t>(first + 1));
    if (!isReservedLevel(report, t.key)) {
      any_stable |= trend.verdict == TrendVerdict::kStable;
      any_growing |= trend.verdict == TrendVerdict::kGrowing;
    }
    report.trends.push_back(trend);
  }
  report.verdict = any_growing  ? TrendVerdict::kGrowing
                   : any_stable ? TrendVerdict::kStable
                                : TrendVerdict::kUnknown;
}

const std::vector<uint32_t>& Analysis::linksOf(uint32_t site) {
  auto it = site_links_.find(site);
  if (it == site_links_.end()) {
    std::vector<uint32_t> links;
    if (!options_.links.empty()) {
      links = linkStack(symbols_.stack(retention_.site(site).stack), options_.links);
    }
    it = site_links_.emplace(site, std::move(links)).first;
  }
  return it->second;
}

// Steady windows follow a complete, counted iteration that another iteration follows: the final
// window ends with the trace (teardown) and warm-up windows hold what warm-up creates.
void Analysis::fillSteady(Report& report, const std::vector<uint16_t>& order) const {
  const std::vector<IterationSpan>& spans = tracker_.iterations();
  std::vector<size_t> windows;
  for (size_t i = 0; i < spans.size(); ++i) {
    if (spans[i].complete && i >= options_.warmup_iterations && i + 1 < spans.size())
      windows.push_back(i);
  }
  if (windows.empty()) {
    for (size_t i = 0; i < spans.size(); ++i) windows.push_back(i);
  }
  for (uint16_t s : order) {
    const std::vector<Phase>& closed = timeline_.phases(s).windows;
    SteadyFloor& steady = report.steady.emplace_back();
    steady.key = timeline_.slot(s).key;
    for (size_t i : windows) {
      if (steady.iteration == 0 || closed[i].floor > steady.idle_floor) {
        steady.iteration = static_cast<uint32_t>(i + 1);
        steady.idle_floor = closed[i].floor;
      }
    }
  }
}

// Every retaining site of every window (not only the top ones), counted bytes only: persistent
// bytes are the model's own state, which no finding is about.
std::vector<std::vector<Tally>> Analysis::fillExplained(Report& report,
                                                        const std::vector<uint16_t>& order) {
  if (options_.links.empty()) return {};
  const std::vector<IterationSpan>& spans = tracker_.iterations();
  std::vector<size_t> position(timeline_.slotCount());
  for (size_t p = 0; p < order.size(); ++p) position[order[p]] = p;
  std::vector<std::vector<Tally>> out(spans.size(), std::vector<Tally>(order.size()));
  size_t windows = std::min(spans.size(), retention_.windowCount());
  for (size_t i = 0; i < windows; ++i) {
    // [finding][memory position]
    std::vector<std::vector<Tally>> per_finding(options_.links.size(),
                                                std::vector<Tally>(order.size()));
    std::vector<Tally> any(order.size());
    bool complete = spans[i].complete;
    for (const auto& [site, counted] : retention_.windowSites(i)) {
      if (!complete || counted.count == 0) continue;
      const std::vector<uint32_t>& links = linksOf(site);
      if (links.empty()) continue;
      size_t p = position[retention_.site(site).slot];
      any[p] += counted;
      for (uint32_t f : links) per_finding[f][p] += counted;
    }
    out[i] = any;
    for (uint32_t f = 0; f < per_finding.size(); ++f) {
      for (size_t p = 0; p < order.size(); ++p) {
        if (per_finding[f][p].count == 0) continue;
        const auto iteration = static_cast<uint32_t>(i + 1);
        report.explained.push_back(
            {f, iteration, timeline_.slot(order[p]).key, per_finding[f][p], iteration});
      }
    }
  }
  std::stable_sort(report.explained.begin(), report.explained.end(),
                   [](const Explained& a, const Explained& b) { return a.finding < b.finding; });
  return out;
}

// What stays a row whatever its window (docs/report-schema.md, "iteration_ranges[]"): what readers
// look up by index (the steady floors' windows, the largest peaks), and what only one iteration
// has (warm-up, the first counted and the last iteration, a cut one, a census).
std::vector<bool> Analysis::keptWhole(const Report& report, const std::vector<uint16_t>& order,
                                      const HeldByWindows& held) const {
  const std::vector<IterationSpan>& spans = tracker_.iterations();
  const size_t n = spans.size();
  std::vector<bool> kept(n);
  for (size_t i = 0; i < n; ++i) {
    kept[i] = i <= options_.warmup_iterations || i + 1 == n || !spans[i].complete ||
              (i < held.windows.size() && !held.windows[i].empty());
  }
  for (const SteadyFloor& s : report.steady) {
    if (s.iteration > 0 && s.iteration <= n) kept[s.iteration - 1] = true;
  }
  for (uint16_t s : order) {  // the first iteration with the memory's largest peak
    const std::vector<Phase>& iterations = timeline_.phases(s).iterations;
    size_t best = 0;
    for (size_t i = 1; i < n; ++i) {
      if (iterations[i].peak > iterations[best].peak) best = i;
    }
    if (n > 0) kept[best] = true;
  }
  return kept;
}

}  // namespace memfloor::analysis
