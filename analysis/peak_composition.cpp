// PeakComposition: iteration boundaries, the ranking of each peak's sites, and the classes.
#include "analysis/peak_composition.h"

#include <algorithm>
#include <cassert>

namespace memfloor::analysis {
namespace {

Tally total(const Ages& a) {
  Tally out = a.persistent;
  out += a.earlier;
  out += a.before;
  out += a.iteration;
  out += a.after;
  return out;
}

// Ages at an iteration's peak as classes: what was made earlier, and so outlived the window
// before the iteration, takes the classes of its never-freed bytes from that window on.
PeakTally classify(const Ages& a, const NeverFreed::Split& never_freed) {
  assert(a.after.count == 0 && "bytes of the next window at a peak");
  assert(never_freed.leak.bytes + never_freed.persistent.bytes <= a.earlier.bytes &&
         "never-freed bytes exceed the earlier bytes at the peak");
  PeakTally out;
  out.iteration = a.iteration;
  out.earlier_iteration = a.before;
  out.inter_iteration = a.earlier;
  out.inter_iteration -= never_freed.leak;
  out.inter_iteration -= never_freed.persistent;
  out.leak = never_freed.leak;
  out.persistent = a.persistent;
  out.persistent += never_freed.persistent;
  return out;
}

}  // namespace

void PeakComposition::grow(const LiveAlloc& alloc) {
  sites_.resize(alloc.site + 1u);
  sites_[alloc.site].slot = alloc.slot;
  if (alloc.slot >= slots_.size()) {
    // A slot first seen now held nothing before: its peak so far is 0 at the iteration's start.
    slots_.resize(alloc.slot + 1u);
    slots_[alloc.slot].at_ns = start_ns_;
  }
}

void PeakComposition::beginIteration(uint32_t index, uint64_t start_ns) {
  assert(!in_iteration_ && "iteration begun twice");
  assert((peaks_.empty() || index == iteration_ + 1) && "iterations out of order");
  in_iteration_ = true;
  iteration_ = index;
  start_ns_ = start_ns;
  for (SiteAges& s : sites_) {
    s.now.age();
    s.at_peak = s.now;
    s.dirty = false;
  }
  for (SlotAges& s : slots_) {
    s.now.age();
    s.at_peak = s.now;
    s.peak = s.live;
    s.at_ns = start_ns;
    s.dirty.clear();
  }
}

void PeakComposition::endIteration() {
  assert(in_iteration_ && "end of an iteration that was not begun");
  in_iteration_ = false;
  std::vector<AgedPeak>& peaks = peaks_.emplace_back(slots_.size());
  starts_.push_back(start_ns_);
  std::vector<std::vector<uint32_t>> candidates(slots_.size());
  for (uint32_t i = 0; i < sites_.size(); ++i) {
    if (total(sites_[i].at_peak).count > 0) candidates[sites_[i].slot].push_back(i);
  }
  auto before = [this](uint32_t a, uint32_t b) {
    const uint64_t x = total(sites_[a].at_peak).bytes, y = total(sites_[b].at_peak).bytes;
    return x != y ? x > y : a < b;
  };
  for (size_t slot = 0; slot < slots_.size(); ++slot) {
    AgedPeak& peak = peaks[slot];
    peak.at_ns = slots_[slot].at_ns;
    peak.live = slots_[slot].at_peak;
    std::vector<uint32_t>& list = candidates[slot];
    const size_t n = std::min<size_t>(top_sites_, list.size());
    std::partial_sort(list.begin(), list.begin() + static_cast<ptrdiff_t>(n), list.end(), before);
    for (size_t k = 0; k < n; ++k) peak.sites.emplace_back(list[k], sites_[list[k]].at_peak);
  }
}

std::vector<std::vector<PeakComposition::Peak>> PeakComposition::finish(
    const NeverFreed& never_freed, size_t slot_count) const {
  assert(!in_iteration_ && "finish with an open iteration: end it first");
  std::vector<std::vector<Peak>> out(peaks_.size());
  for (uint32_t i = 0; i < peaks_.size(); ++i) {
    out[i].resize(slot_count);
    for (size_t slot = 0; slot < slot_count; ++slot) {
      Peak& peak = out[i][slot];
      peak.at_ns = starts_[i];
      if (slot >= peaks_[i].size()) continue;  // first seen later: nothing was live
      const AgedPeak& aged = peaks_[i][slot];
      peak.at_ns = aged.at_ns;
      // What was made earlier outlived window i - 1; the first iteration has no earlier bytes.
      if (i == 0) {
        assert(aged.live.earlier.count == 0 && "earlier bytes at the first peak");
        peak.live = classify(aged.live, {});
        for (const auto& [site, ages] : aged.sites)
          peak.sites.emplace_back(site, classify(ages, {}));
        continue;
      }
      peak.live = classify(aged.live, never_freed.ofSlot(static_cast<uint16_t>(slot), i - 1));
      for (const auto& [site, ages] : aged.sites) {
        peak.sites.emplace_back(site, classify(ages, never_freed.ofSite(site, i - 1)));
      }
    }
  }
  return out;
}

}  // namespace memfloor::analysis
