// Retention: window snapshots, top-site ranking and the end-of-trace classification.
#include "analysis/retention.h"

#include <algorithm>
#include <cassert>

namespace memfloor::analysis {
namespace {

// How a never-freed allocation of a counted iteration is classified, from its site's behaviour.
enum class Fate : uint8_t {
  kLeak,            // its site leaves never-freed allocations from two or more iterations
  kInterIteration,  // its site's allocations are freed after outliving a window; the trace ended
  kPersistent,      // allocated once and kept: lazily created state
};

// An allocation of a counted iteration that is still live at the end of the trace and that some
// window retains (first_window < number of windows).
struct Survivor {
  uint32_t site;
  uint32_t first_window;
  uint16_t slot;
  Fate fate;
  uint64_t size;
};

// p, c: retained bytes allocated before / during the counted iterations; of c, `never_freed`
// holds the leak and the persistent part. The rest of c is inter-iteration.
RetainedTally classify(const Tally& p, Tally c, const NeverFreed::Split& never_freed) {
  const auto& [leak, kept] = never_freed;
  assert(leak.bytes + kept.bytes <= c.bytes && "never-freed bytes exceed the retained bytes");
  c -= leak;
  c -= kept;
  Tally persistent = p;
  persistent += kept;
  return {c, leak, persistent};
}

// One survivor's bytes where its fate puts them (an inter-iteration survivor's in neither part).
NeverFreed::Split splitOf(const Survivor& s) {
  NeverFreed::Split out;
  if (s.fate == Fate::kLeak) out.leak.add(s.size);
  if (s.fate == Fate::kPersistent) out.persistent.add(s.size);
  return out;
}

}  // namespace

void NeverFreed::Prefix::add(uint32_t window, const Split& bytes) {
  assert((first_window.empty() || first_window.back() <= window) && "windows out of order");
  if (first_window.empty() || first_window.back() != window) {
    first_window.push_back(window);
    cumulative.push_back(cumulative.empty() ? Split{} : cumulative.back());
  }
  cumulative.back().leak += bytes.leak;
  cumulative.back().persistent += bytes.persistent;
}

NeverFreed::Split NeverFreed::Prefix::upTo(uint32_t window) const {
  auto it = std::upper_bound(first_window.begin(), first_window.end(), window);
  return it == first_window.begin() ? Split{} : cumulative[it - first_window.begin() - 1];
}

NeverFreed::Split NeverFreed::ofSite(uint32_t site, uint32_t window) const {
  auto it = sites_.find(site);
  return it == sites_.end() ? Split{} : it->second.upTo(window);
}

NeverFreed::Split NeverFreed::ofSlot(uint16_t slot, uint32_t window) const {
  return slot < slots_.size() ? slots_[slot].upTo(window) : Split{};
}

uint32_t Retention::addSite(uint16_t slot, trace::StackId stack) {
  bool inserted = false;
  SiteIndex& entry = index_.findOrInsert(SiteIndex::keyOf(slot, stack), inserted);
  if (inserted) {
    entry.site = static_cast<uint32_t>(sites_.size());
    sites_.push_back(Site{slot, stack, {}, {}, {}, {}, false});
  }
  if (stack < kDirectStacks) {
    if (direct_.size() <= slot) direct_.resize(slot + 1u);
    std::vector<uint32_t>& row = direct_[slot];
    if (row.size() <= stack) row.resize(std::max<size_t>(stack + 1u, row.size() * 2), kNoSite);
    row[stack] = entry.site;
  }
  return entry.site;
}

void Retention::beginWindow(uint32_t window) {
  assert(!window_open_ && "window begun twice");
  window_open_ = true;
  window_ = window;
  for (Site& s : sites_) {
    s.window_persistent = s.live_persistent;
    s.window_counted = s.live_counted;
  }
}

void Retention::endWindow() {
  assert(window_open_ && "window ended without a begin");
  window_open_ = false;
  ClosedWindow& w = windows_.emplace_back();
  std::vector<uint32_t> candidates;
  for (uint32_t i = 0; i < sites_.size(); ++i) {
    const Site& s = sites_[i];
    if (s.window_persistent.count == 0 && s.window_counted.count == 0) continue;
    if (w.per_slot.size() <= s.slot) w.per_slot.resize(s.slot + 1u);
    w.per_slot[s.slot].first += s.window_persistent;
    w.per_slot[s.slot].second += s.window_counted;
    candidates.push_back(i);
    if (keep_window_sites_ && s.window_counted.count != 0)
      w.sites.emplace_back(i, s.window_counted);
  }
  // Bytes from counted iterations first: what is retained beyond the model's own state is what a
  // user is looking for, and persistent sites (weights) would otherwise fill the list.
  auto before = [this](uint32_t a, uint32_t b) {
    const Site& x = sites_[a];
    const Site& y = sites_[b];
    if (x.window_counted.bytes != y.window_counted.bytes) {
      return x.window_counted.bytes > y.window_counted.bytes;
    }
    if (x.window_persistent.bytes != y.window_persistent.bytes) {
      return x.window_persistent.bytes > y.window_persistent.bytes;
    }
    return a < b;
  };
  size_t n = std::min<size_t>(top_sites_, candidates.size());
  std::partial_sort(candidates.begin(), candidates.begin() + static_cast<ptrdiff_t>(n),
                    candidates.end(), before);
  for (size_t i = 0; i < n; ++i) {
    const Site& s = sites_[candidates[i]];
    w.top.push_back(candidates[i]);
    w.top_tallies.emplace_back(s.window_persistent, s.window_counted);
  }
}

NeverFreed Retention::neverFreed(const LiveSet& live) const {
  const auto windows = static_cast<uint32_t>(windows_.size());
  std::vector<Survivor> survivors;
  live.forEach([&](const LiveAlloc& a) {
    if ((a.flags & kBornPersistent) == 0 && a.first_window < windows) {
      survivors.push_back({a.site, a.first_window, a.slot, Fate::kPersistent, a.size});
    }
  });
  std::sort(survivors.begin(), survivors.end(), [](const Survivor& a, const Survivor& b) {
    return a.site != b.site ? a.site < b.site : a.first_window < b.first_window;
  });

  NeverFreed out;
  for (size_t begin = 0, end = 0; begin < survivors.size(); begin = end) {
    const uint32_t site = survivors[begin].site;
    size_t first_windows = 0;
    for (end = begin; end < survivors.size() && survivors[end].site == site; ++end) {
      if (end == begin || survivors[end - 1].first_window != survivors[end].first_window) {
        ++first_windows;
      }
    }
    const Fate fate = first_windows >= 2                  ? Fate::kLeak
                      : sites_[site].freed_after_retained ? Fate::kInterIteration
                                                          : Fate::kPersistent;
    NeverFreed::Prefix& group = out.sites_[site];
    for (size_t i = begin; i < end; ++i) {
      survivors[i].fate = fate;
      group.add(survivors[i].first_window, splitOf(survivors[i]));
    }
  }
  // Each slot's never-freed totals, from each survivor's first window on.
  std::stable_sort(survivors.begin(), survivors.end(), [](const Survivor& a, const Survivor& b) {
    return a.first_window < b.first_window;
  });
  for (const Survivor& s : survivors) {
    if (out.slots_.size() <= s.slot) out.slots_.resize(s.slot + 1u);
    out.slots_[s.slot].add(s.first_window, splitOf(s));
  }
  return out;
}

std::vector<RetainedWindow> Retention::finish(const LiveSet& live, size_t slot_count) const {
  assert(!window_open_ && "finish with an open window: end it first");
  const NeverFreed never_freed = neverFreed(live);
  std::vector<RetainedWindow> out(windows_.size());
  for (uint32_t i = 0; i < windows_.size(); ++i) {
    const ClosedWindow& w = windows_[i];
    RetainedWindow& r = out[i];
    r.per_slot.resize(slot_count);
    if (w.skipped) continue;
    for (size_t slot = 0; slot < slot_count; ++slot) {
      std::pair<Tally, Tally> born =
          slot < w.per_slot.size() ? w.per_slot[slot] : std::pair<Tally, Tally>{};
      r.per_slot[slot] =
          classify(born.first, born.second, never_freed.ofSlot(static_cast<uint16_t>(slot), i));
    }
    for (size_t k = 0; k < w.top.size(); ++k) {
      const auto& [p, c] = w.top_tallies[k];
      r.top.emplace_back(w.top[k], classify(p, c, never_freed.ofSite(w.top[k], i)));
    }
  }
  return out;
}

}  // namespace memfloor::analysis
