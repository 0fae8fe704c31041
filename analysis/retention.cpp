// Retention: window snapshots, top-site ranking and the classification at the run's end.
#include "analysis/retention.h"

#include <algorithm>
#include <cassert>

namespace memfloor::analysis {
namespace {

// How a never-freed allocation of a counted iteration is classified, from its site's behaviour.
enum class Fate : uint8_t {
  kLeak,            // its site leaves never-freed allocations from two or more iterations
  kInterIteration,  // its site's allocations are freed in the run after outliving a window
  kPersistent,      // allocated once and kept: lazily created state
  kCached,          // as kLeak, on a caching allocator's reserved level: its cache grew
};

// An allocation of a counted iteration that the run never freed (live at the end of the trace, or
// freed after the run's end) and that some window retains: windows first_window to end_window - 1.
struct Survivor {
  uint32_t site;
  uint32_t first_window;
  uint32_t end_window;
  uint16_t slot;
  Fate fate;
  uint64_t size;
};

// p, c: retained bytes allocated before / during the counted iterations; of c, `never_freed`
// holds the leak, the persistent and the cached part. The rest of c is inter-iteration.
RetainedTally classify(const Tally& p, Tally c, const NeverFreed::Split& never_freed) {
  const auto& [leak, kept, cached] = never_freed;
  assert(leak.bytes + kept.bytes + cached.bytes <= c.bytes &&
         "never-freed bytes exceed the retained bytes");
  c -= leak;
  c -= kept;
  c -= cached;
  Tally persistent = p;
  persistent += kept;
  return {c, leak, persistent, cached};
}

// One survivor's bytes where its fate puts them (an inter-iteration survivor's in neither part).
NeverFreed::Split splitOf(const Survivor& s) {
  NeverFreed::Split out;
  if (s.fate == Fate::kLeak) out.leak.add(s.size);
  if (s.fate == Fate::kPersistent) out.persistent.add(s.size);
  if (s.fate == Fate::kCached) out.cached.add(s.size);
  return out;
}

void sortByEnd(std::vector<const Survivor*>& survivors) {
  std::stable_sort(survivors.begin(), survivors.end(), [](const Survivor* a, const Survivor* b) {
    return a->end_window < b->end_window;
  });
}

}  // namespace

void NeverFreed::Steps::add(uint32_t w, const Split& bytes) {
  assert((window.empty() || window.back() <= w) && "windows out of order");
  if (window.empty() || window.back() != w) {
    window.push_back(w);
    cumulative.push_back(cumulative.empty() ? Split{} : cumulative.back());
  }
  cumulative.back().leak += bytes.leak;
  cumulative.back().persistent += bytes.persistent;
  cumulative.back().cached += bytes.cached;
}

NeverFreed::Split NeverFreed::Steps::upTo(uint32_t w) const {
  auto it = std::upper_bound(window.begin(), window.end(), w);
  return it == window.begin() ? Split{} : cumulative[it - window.begin() - 1];
}

NeverFreed::Split NeverFreed::Retained::in(uint32_t window) const {
  Split out = born.upTo(window);
  const Split gone = freed.upTo(window);
  out.leak -= gone.leak;
  out.persistent -= gone.persistent;
  out.cached -= gone.cached;
  return out;
}

NeverFreed::Split NeverFreed::ofSite(uint32_t site, uint32_t window) const {
  auto it = sites_.find(site);
  return it == sites_.end() ? Split{} : it->second.in(window);
}

NeverFreed::Split NeverFreed::ofSlot(uint16_t slot, uint32_t window) const {
  return slot < slots_.size() ? slots_[slot].in(window) : Split{};
}

NeverFreed::Split NeverFreed::ofSiteAll(uint32_t site, const Tally& bytes) const {
  Split out;
  auto it = sites_.find(site);
  if (it != sites_.end() && it->second.leak) out.leak = bytes;
  if (it != sites_.end() && it->second.persistent) out.persistent = bytes;
  if (it != sites_.end() && it->second.cached) out.cached = bytes;
  return out;
}

std::optional<RetentionClass> NeverFreed::fateOf(uint32_t site) const {
  auto it = sites_.find(site);
  if (it == sites_.end()) return std::nullopt;
  const Retained& r = it->second;
  return r.leak         ? RetentionClass::kLeak
         : r.persistent ? RetentionClass::kPersistent
         : r.cached     ? RetentionClass::kCached
                        : RetentionClass::kInterIteration;
}

uint32_t Retention::addSite(uint16_t slot, trace::StackId stack) {
  bool inserted = false;
  SiteIndex& entry = index_.findOrInsert(SiteIndex::keyOf(slot, stack), inserted);
  if (inserted) {
    entry.site = static_cast<uint32_t>(sites_.size());
    sites_.push_back(Site{slot, stack, {}, {}, false});
  }
  if (stack < kDirectStacks) {
    if (direct_.size() <= slot) {
      direct_.resize(slot + 1u);
      direct_slots_ = static_cast<uint32_t>(direct_.size());
    }
    DirectRow& row = direct_[slot];
    if (row.size <= stack) {
      const uint32_t size = std::max(stack + 1u, row.size * 2);  // at most 2 * kDirectStacks
      auto sites = std::make_unique_for_overwrite<uint32_t[]>(size);
      std::copy_n(row.sites.get(), row.size, sites.get());
      std::fill(sites.get() + row.size, sites.get() + size, kNoSite);
      row.sites = std::move(sites);
      row.size = size;
    }
    row.sites[stack] = entry.site;
  }
  return entry.site;
}

void Retention::openWindow(uint32_t window) {
  assert(!window_open_ && "window begun twice");
  // An iteration has ended: the frees since the one before are part of the run.
  for (const LateFree& f : late_frees_) sites_[f.site].freed_after_retained = true;
  late_frees_.clear();
  window_open_ = true;
  window_ = window;
}

void Retention::endWindow(const Timeline& timeline) {
  assert(window_open_ && "window ended without a begin");
  window_open_ = false;
  ClosedWindow& w = windows_.emplace_back();
  ++closed_windows_;
  std::vector<uint32_t> candidates, blocks;
  for (uint32_t i = 0; i < sites_.size(); ++i) {
    const Site& s = sites_[i];
    if (s.window_persistent.count == 0 && s.window_counted.count == 0) continue;
    if (w.per_slot.size() <= s.slot) w.per_slot.resize(s.slot + 1u);
    w.per_slot[s.slot].first += s.window_persistent;
    w.per_slot[s.slot].second += s.window_counted;
    const bool block = timeline.slot(s.slot).key.kind == trace::MemoryKind::kBlock;
    (block ? blocks : candidates).push_back(i);
    if (keep_window_sites_ && s.window_counted.count != 0)
      w.sites.emplace_back(i, s.window_counted);
  }
  // A caching allocator's blocks are what the program keeps; its segments, few and large, would
  // crowd them out of one list: the blocks' sites are ranked apart, and listed first.
  keepTop(blocks, w);
  keepTop(candidates, w);
}

void Retention::keepTop(std::vector<uint32_t>& candidates, ClosedWindow& w) const {
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

NeverFreed Retention::neverFreed(const LiveSet& live, const std::vector<bool>& reserved) const {
  const auto windows = static_cast<uint32_t>(windows_.size());

  // Never freed in the run: live at the end of the trace, or freed after the run's end (since the
  // last iteration ended: teardown, or what a trace cut inside an iteration freed). Each is
  // retained by a window that retains anything: not the one after an iteration the trace ended
  // inside.
  const uint32_t retaining = windows > 0 && windows_.back().skipped ? windows - 1 : windows;
  std::vector<Survivor> survivors;
  live.forEach([&](const LiveAlloc& a) {
    if ((a.flags & kBornPersistent) == 0 && a.first_window < retaining) {
      survivors.push_back({a.site, a.first_window, windows, a.slot, Fate::kPersistent, a.size});
    }
  });
  for (const LateFree& f : late_frees_) {
    survivors.push_back({f.site, f.first_window, f.end_window, f.slot, Fate::kPersistent, f.size});
  }
  std::sort(survivors.begin(), survivors.end(), [](const Survivor& a, const Survivor& b) {
    return a.site != b.site ? a.site < b.site : a.first_window < b.first_window;
  });

  NeverFreed out;
  out.ended_inside_ = retaining < windows;
  std::vector<const Survivor*> ends;  // of one site, by end window
  for (size_t begin = 0, end = 0; begin < survivors.size(); begin = end) {
    const uint32_t site = survivors[begin].site;
    size_t first_windows = 0;
    for (end = begin; end < survivors.size() && survivors[end].site == site; ++end) {
      if (end == begin || survivors[end - 1].first_window != survivors[end].first_window) {
        ++first_windows;
      }
    }
    // What accumulates on a reserved level is the allocator's cache growing, not a leak.
    const uint16_t slot = sites_[site].slot;
    const Fate accumulates = slot < reserved.size() && reserved[slot] ? Fate::kCached : Fate::kLeak;
    const Fate fate = first_windows >= 2                  ? accumulates
                      : sites_[site].freed_after_retained ? Fate::kInterIteration
                                                          : Fate::kPersistent;
    NeverFreed::Retained& group = out.sites_[site];
    group.leak = fate == Fate::kLeak;
    group.persistent = fate == Fate::kPersistent;
    group.cached = fate == Fate::kCached;
    ends.clear();
    for (size_t i = begin; i < end; ++i) {
      survivors[i].fate = fate;
      group.born.add(survivors[i].first_window, splitOf(survivors[i]));
      if (survivors[i].end_window < windows) ends.push_back(&survivors[i]);  // freed after the end
    }
    sortByEnd(ends);
    for (const Survivor* s : ends) group.freed.add(s->end_window, splitOf(*s));
  }
  // Each slot's never-freed totals, from each survivor's first window on, up to its end window.
  std::stable_sort(survivors.begin(), survivors.end(), [](const Survivor& a, const Survivor& b) {
    return a.first_window < b.first_window;
  });
  ends.clear();
  for (const Survivor& s : survivors) {
    if (out.slots_.size() <= s.slot) out.slots_.resize(s.slot + 1u);
    out.slots_[s.slot].born.add(s.first_window, splitOf(s));
    if (s.end_window < windows) ends.push_back(&s);
  }
  sortByEnd(ends);
  for (const Survivor* s : ends) out.slots_[s->slot].freed.add(s->end_window, splitOf(*s));
  return out;
}

std::vector<RetainedWindow> Retention::finish(const LiveSet& live,
                                              const std::vector<bool>& reserved) const {
  assert(!window_open_ && "finish with an open window: end it first");
  const NeverFreed never_freed = neverFreed(live, reserved);
  const size_t slot_count = reserved.size();
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
