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
  assert(never_freed.leak.bytes + never_freed.persistent.bytes + never_freed.cached.bytes <=
             a.earlier.bytes &&
         "never-freed bytes exceed the earlier bytes at the peak");
  PeakTally out;
  out.iteration = a.iteration;
  out.earlier_iteration = a.before;
  out.inter_iteration = a.earlier;
  out.inter_iteration -= never_freed.leak;
  out.inter_iteration -= never_freed.persistent;
  out.inter_iteration -= never_freed.cached;
  out.leak = never_freed.leak;
  out.cached = never_freed.cached;
  out.persistent = a.persistent;
  out.persistent += never_freed.persistent;
  return out;
}

}  // namespace

void PeakComposition::addSite(uint32_t site, uint16_t slot_index) {
  if (site >= sites_.size()) sites_.resize(site + 1u);
  sites_[site].slot = slot_index;
  if (slot_index >= slots_.size()) {
    // A slot first seen now held nothing before: its peak so far is 0, at the iteration's start
    // (its first maximum: no cell is stamped with it yet).
    slots_.resize(slot_index + 1u);
    SlotPeak& slot = slots_[slot_index];
    slot.at_ns = start_ns_;
    slot.maximum = 1;
  }
}

Ages PeakComposition::atPeak(const SiteAges& site) const {
  const uint64_t maximum = slots_[site.slot].maximum;
  auto at = [&](Age age) {
    const Cell& c = site.cells[age];
    return c.stamp == maximum ? c.saved : c.now;
  };
  return {at(kPersistent), at(kEarlier), at(kBefore), at(kIteration), at(kAfter)};
}

void PeakComposition::beginIteration(uint32_t index, uint64_t start_ns) {
  assert(!in_iteration_ && "iteration begun twice");
  assert((peaks_.empty() || index == iteration_ + 1) && "iterations out of order");
  in_iteration_ = true;
  iteration_ = index;
  start_ns_ = start_ns;
  // What was made in the window before and in the last iteration is earlier now.
  for (SiteAges& s : sites_) {
    std::array<Cell, kAgeCount>& c = s.cells;
    c[kEarlier].now += c[kBefore].now;
    c[kEarlier].now += c[kIteration].now;
    c[kBefore].now = c[kAfter].now;
    c[kIteration].now = {};
    c[kAfter].now = {};
  }
  // The start is the first maximum: every tally's value there is its value now.
  for (SlotPeak& s : slots_) {
    s.at_ns = start_ns;
    ++s.maximum;
  }
}

void PeakComposition::endIteration() {
  assert(in_iteration_ && "end of an iteration that was not begun");
  in_iteration_ = false;
  std::vector<AgedPeak>& peaks = peaks_.emplace_back(slots_.size());
  starts_.push_back(start_ns_);
  std::vector<std::vector<std::pair<uint32_t, Ages>>> candidates(slots_.size());
  // Bytes by module group, per slot: only where a site has a module.
  const bool by_module = module_count_ > 1;
  std::vector<std::vector<Tally>> modules(by_module ? slots_.size() : 0);
  for (std::vector<Tally>& m : modules) m.resize(module_count_);
  last_earlier_.resize(sites_.size());
  for (uint32_t i = 0; i < sites_.size(); ++i) {
    const Ages ages = atPeak(sites_[i]);
    last_earlier_[i] = ages.earlier;
    if (total(ages).count == 0) continue;
    AgedPeak& peak = peaks[sites_[i].slot];
    peak.live.persistent += ages.persistent;
    peak.live.earlier += ages.earlier;
    peak.live.before += ages.before;
    peak.live.iteration += ages.iteration;
    peak.live.after += ages.after;
    candidates[sites_[i].slot].emplace_back(i, ages);
    if (by_module) modules[sites_[i].slot][i < modules_.size() ? modules_[i] : 0] += total(ages);
  }
  auto before = [](const std::pair<uint32_t, Ages>& a, const std::pair<uint32_t, Ages>& b) {
    const uint64_t x = total(a.second).bytes, y = total(b.second).bytes;
    return x != y ? x > y : a.first < b.first;
  };
  for (size_t slot = 0; slot < slots_.size(); ++slot) {
    AgedPeak& peak = peaks[slot];
    peak.at_ns = slots_[slot].at_ns;
    std::vector<std::pair<uint32_t, Ages>>& list = candidates[slot];
    const size_t n = std::min<size_t>(top_sites_, list.size());
    std::partial_sort(list.begin(), list.begin() + static_cast<ptrdiff_t>(n), list.end(), before);
    peak.sites.assign(list.begin(), list.begin() + static_cast<ptrdiff_t>(n));
    if (!by_module) continue;
    for (uint32_t group = 0; group < module_count_; ++group) {
      if (modules[slot][group].count != 0) peak.modules.emplace_back(group, modules[slot][group]);
    }
    auto more = [](const std::pair<uint32_t, Tally>& a, const std::pair<uint32_t, Tally>& b) {
      return a.second.bytes != b.second.bytes ? a.second.bytes > b.second.bytes : a.first < b.first;
    };
    const size_t m = std::min<size_t>(top_sites_, peak.modules.size());
    std::partial_sort(peak.modules.begin(), peak.modules.begin() + static_cast<ptrdiff_t>(m),
                      peak.modules.end(), more);
    peak.modules.resize(m);
  }
}

std::vector<std::vector<PeakComposition::Peak>> PeakComposition::finish(
    const NeverFreed& never_freed, size_t slot_count) const {
  assert(!in_iteration_ && "finish with an open iteration: end it first");
  std::vector<std::vector<Peak>> out(peaks_.size());
  // The last iteration's earlier bytes at its peak, per slot, by their sites' fates.
  std::vector<NeverFreed::Split> last_never_freed(slot_count);
  for (uint32_t site = 0; site < last_earlier_.size(); ++site) {
    if (last_earlier_[site].count == 0) continue;
    const NeverFreed::Split split = never_freed.ofSiteAll(site, last_earlier_[site]);
    last_never_freed[sites_[site].slot].leak += split.leak;
    last_never_freed[sites_[site].slot].persistent += split.persistent;
    last_never_freed[sites_[site].slot].cached += split.cached;
  }
  for (uint32_t i = 0; i < peaks_.size(); ++i) {
    out[i].resize(slot_count);
    for (size_t slot = 0; slot < slot_count; ++slot) {
      Peak& peak = out[i][slot];
      peak.at_ns = starts_[i];
      if (slot >= peaks_[i].size()) continue;  // first seen later: nothing was live
      const AgedPeak& aged = peaks_[i][slot];
      peak.at_ns = aged.at_ns;
      peak.modules = aged.modules;
      // What was made earlier outlived window i - 1; the first iteration has no earlier bytes.
      if (i == 0) {
        assert(aged.live.earlier.count == 0 && "earlier bytes at the first peak");
        peak.live = classify(aged.live, {});
        for (const auto& [site, ages] : aged.sites)
          peak.sites.emplace_back(site, classify(ages, {}));
        continue;
      }
      if (never_freed.endedInside() && i + 1 == peaks_.size()) {
        // The iteration came after the run's end: every earlier byte at its peak was never freed
        // in the run (some went before the peak), and each site's take its fate.
        peak.live = classify(aged.live, last_never_freed[slot]);
        for (const auto& [site, ages] : aged.sites)
          peak.sites.emplace_back(site, classify(ages, never_freed.ofSiteAll(site, ages.earlier)));
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
