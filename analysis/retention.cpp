// Retention: window snapshots, top-site ranking and the classification at the run's end.
#include "analysis/retention.h"

#include <algorithm>
#include <cassert>
#include <unordered_map>

namespace memfloor::analysis {
namespace {

// How a never-freed allocation of a counted iteration is classified, from its site's behaviour.
enum class Fate : uint8_t {
  kLeak,            // its site leaves never-freed allocations from two or more iterations
  kInterIteration,  // its site's allocations are freed in the run after outliving a window
  kPersistent,      // allocated once and kept: lazily created state
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

// A step function over the windows: the bytes that begin (or end) at or before a window.
struct Steps {
  std::vector<uint32_t> window;  // ascending
  std::vector<Tally> cumulative;
  void add(uint32_t w, uint64_t size) {
    Tally running = cumulative.empty() ? Tally{} : cumulative.back();
    running.add(size);
    if (!window.empty() && window.back() == w) {
      cumulative.back() = running;
    } else {
      window.push_back(w);
      cumulative.push_back(running);
    }
  }
  Tally upTo(uint32_t w) const {
    auto it = std::upper_bound(window.begin(), window.end(), w);
    return it == window.begin() ? Tally{} : cumulative[it - window.begin() - 1];
  }
};

// The never-freed bytes of one site, for lookups by window.
struct SiteSurvivors {
  Steps born;   // by first window
  Steps freed;  // by end window: from it on, no longer retained
  Fate fate = Fate::kPersistent;
  Tally retainedIn(uint32_t window) const {
    Tally t = born.upTo(window);
    t -= freed.upTo(window);
    return t;
  }
};

// Groups the survivors by site (sorting them by site, then first window) and gives each the fate
// of its site.
std::unordered_map<uint32_t, SiteSurvivors> groupBySite(std::vector<Survivor>& survivors,
                                                        const std::vector<Site>& sites) {
  std::sort(survivors.begin(), survivors.end(), [](const Survivor& a, const Survivor& b) {
    return a.site != b.site ? a.site < b.site : a.first_window < b.first_window;
  });
  std::unordered_map<uint32_t, SiteSurvivors> by_site;
  std::vector<std::pair<uint32_t, uint64_t>> ends;  // (end window, size) of one site
  for (size_t begin = 0, end = 0; begin < survivors.size(); begin = end) {
    const uint32_t site = survivors[begin].site;
    SiteSurvivors& group = by_site[site];
    ends.clear();
    for (end = begin; end < survivors.size() && survivors[end].site == site; ++end) {
      group.born.add(survivors[end].first_window, survivors[end].size);
      ends.emplace_back(survivors[end].end_window, survivors[end].size);
    }
    std::sort(ends.begin(), ends.end());
    for (const auto& [window, size] : ends) group.freed.add(window, size);
    group.fate = group.born.window.size() >= 2      ? Fate::kLeak
                 : sites[site].freed_after_retained ? Fate::kInterIteration
                                                    : Fate::kPersistent;
    for (size_t i = begin; i < end; ++i) survivors[i].fate = group.fate;
  }
  return by_site;
}

// Per slot, the never-freed bytes of each class that a window retains, window after window:
// survivors enter at their first window and leave at their end window.
class NeverFreed {
 public:
  NeverFreed(std::vector<Survivor> survivors, uint32_t windows, size_t slot_count)
      : entering_(std::move(survivors)), leak_(slot_count), kept_(slot_count) {
    for (const Survivor& s : entering_) {
      if (s.end_window < windows) leaving_.push_back(s);  // freed after the run's end
    }
    std::stable_sort(entering_.begin(), entering_.end(), [](const Survivor& a, const Survivor& b) {
      return a.first_window < b.first_window;
    });
    std::stable_sort(leaving_.begin(), leaving_.end(), [](const Survivor& a, const Survivor& b) {
      return a.end_window < b.end_window;
    });
  }

  // To window i, from window i - 1 (windows in order from 0).
  void advance(uint32_t i) {
    for (; in_ < entering_.size() && entering_[in_].first_window <= i; ++in_) {
      count(entering_[in_], [](Tally& t, uint64_t size) { t.add(size); });
    }
    for (; out_ < leaving_.size() && leaving_[out_].end_window <= i; ++out_) {
      count(leaving_[out_], [](Tally& t, uint64_t size) { t -= Tally{size, 1}; });
    }
  }
  const Tally& leak(size_t slot) const { return leak_[slot]; }
  const Tally& kept(size_t slot) const { return kept_[slot]; }

 private:
  template <typename Change>
  void count(const Survivor& s, Change&& change) {
    if (s.fate == Fate::kLeak) change(leak_[s.slot], s.size);
    if (s.fate == Fate::kPersistent) change(kept_[s.slot], s.size);
  }

  std::vector<Survivor> entering_, leaving_;
  size_t in_ = 0, out_ = 0;
  std::vector<Tally> leak_, kept_;
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
  // An iteration has ended: the frees since the one before are part of the run.
  for (const LateFree& f : late_frees_) sites_[f.site].freed_after_retained = true;
  late_frees_.clear();
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
  const std::unordered_map<uint32_t, SiteSurvivors> by_site = groupBySite(survivors, sites_);

  NeverFreed never_freed(std::move(survivors), windows, slot_count);
  std::vector<RetainedWindow> out(windows);
  for (uint32_t i = 0; i < windows; ++i) {
    never_freed.advance(i);
    const ClosedWindow& w = windows_[i];
    RetainedWindow& r = out[i];
    r.per_slot.resize(slot_count);
    if (w.skipped) continue;
    for (size_t slot = 0; slot < slot_count; ++slot) {
      std::pair<Tally, Tally> born =
          slot < w.per_slot.size() ? w.per_slot[slot] : std::pair<Tally, Tally>{};
      r.per_slot[slot] =
          classify(born.first, born.second, never_freed.leak(slot), never_freed.kept(slot));
    }
    for (size_t k = 0; k < w.top.size(); ++k) {
      Tally site_never_freed;
      Fate fate = Fate::kInterIteration;
      if (auto it = by_site.find(w.top[k]); it != by_site.end()) {
        site_never_freed = it->second.retainedIn(i);
        fate = it->second.fate;
      }
      const auto& [p, c] = w.top_tallies[k];
      r.top.emplace_back(w.top[k],
                         classify(p, c, fate == Fate::kLeak ? site_never_freed : Tally{},
                                  fate == Fate::kPersistent ? site_never_freed : Tally{}));
    }
  }
  return out;
}

}  // namespace memfloor::analysis
