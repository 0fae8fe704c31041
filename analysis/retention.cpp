// Retention: window snapshots, top-site ranking and the end-of-trace classification.
#include "analysis/retention.h"

#include <algorithm>
#include <cassert>
#include <unordered_map>

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

// Never-freed bytes of one site by first window, cumulative, for lookups by window.
struct SiteSurvivors {
  std::vector<uint32_t> first_window;  // ascending
  std::vector<Tally> cumulative;
  Fate fate = Fate::kPersistent;
  Tally upTo(uint32_t window) const {
    auto it = std::upper_bound(first_window.begin(), first_window.end(), window);
    return it == first_window.begin() ? Tally{} : cumulative[it - first_window.begin() - 1];
  }
};

// p, c: retained bytes allocated before / during the counted iterations; of c, `leak` and
// `kept` were never freed and are a leak / persistent. The rest of c is inter-iteration.
RetainedTally classify(const Tally& p, Tally c, const Tally& leak, const Tally& kept) {
  assert(leak.bytes + kept.bytes <= c.bytes && "never-freed bytes exceed the retained bytes");
  c -= leak;
  c -= kept;
  Tally persistent = p;
  persistent += kept;
  return {c, leak, persistent};
}

}  // namespace

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

std::vector<RetainedWindow> Retention::finish(const LiveSet& live, size_t slot_count) const {
  assert(!window_open_ && "finish with an open window: end it first");
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

  std::unordered_map<uint32_t, SiteSurvivors> by_site;
  for (size_t begin = 0, end = 0; begin < survivors.size(); begin = end) {
    uint32_t site = survivors[begin].site;
    SiteSurvivors& group = by_site[site];
    Tally running;
    for (end = begin; end < survivors.size() && survivors[end].site == site; ++end) {
      running.add(survivors[end].size);
      if (group.first_window.empty() || group.first_window.back() != survivors[end].first_window) {
        group.first_window.push_back(survivors[end].first_window);
        group.cumulative.push_back(running);
      } else {
        group.cumulative.back() = running;
      }
    }
    group.fate = group.first_window.size() >= 2      ? Fate::kLeak
                 : sites_[site].freed_after_retained ? Fate::kInterIteration
                                                     : Fate::kPersistent;
    for (size_t i = begin; i < end; ++i) survivors[i].fate = group.fate;
  }

  // Sweep the windows in order, adding each survivor to its slot's never-freed totals from its
  // first window on.
  std::stable_sort(survivors.begin(), survivors.end(), [](const Survivor& a, const Survivor& b) {
    return a.first_window < b.first_window;
  });
  std::vector<Tally> leak(slot_count), kept(slot_count);
  std::vector<RetainedWindow> out(windows);
  size_t next = 0;
  for (uint32_t i = 0; i < windows; ++i) {
    for (; next < survivors.size() && survivors[next].first_window <= i; ++next) {
      const Survivor& s = survivors[next];
      if (s.fate == Fate::kLeak) leak[s.slot].add(s.size);
      if (s.fate == Fate::kPersistent) kept[s.slot].add(s.size);
    }
    const ClosedWindow& w = windows_[i];
    RetainedWindow& r = out[i];
    r.per_slot.resize(slot_count);
    if (w.skipped) continue;
    for (size_t slot = 0; slot < slot_count; ++slot) {
      std::pair<Tally, Tally> born =
          slot < w.per_slot.size() ? w.per_slot[slot] : std::pair<Tally, Tally>{};
      r.per_slot[slot] = classify(born.first, born.second, leak[slot], kept[slot]);
    }
    for (size_t k = 0; k < w.top.size(); ++k) {
      Tally never_freed;
      Fate fate = Fate::kInterIteration;
      if (auto it = by_site.find(w.top[k]); it != by_site.end()) {
        never_freed = it->second.upTo(i);
        fate = it->second.fate;
      }
      const auto& [p, c] = w.top_tallies[k];
      r.top.emplace_back(w.top[k], classify(p, c, fate == Fate::kLeak ? never_freed : Tally{},
                                            fate == Fate::kPersistent ? never_freed : Tally{}));
    }
  }
  return out;
}

}  // namespace memfloor::analysis
