// Retention: what stays live through each idle window, by allocation site, and why (its class).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

#include "analysis/flat_table.h"
#include "analysis/live_set.h"
#include "analysis/report.h"
#include "analysis/timeline.h"
#include "trace/records.h"

namespace memfloor::analysis {

// An allocation site: one stack on one (device, memory kind) slot.
struct Site {
  uint16_t slot = 0;
  trace::StackId stack = trace::kNoId;
  // Its live bytes (allocated before the first counted iteration, and later) are the peak
  // composition's (peak_composition.h), which counts them by age: beginWindow takes them from it.
  Tally window_persistent;  // live since the open window began (the window's retained set)
  Tally window_counted;
  bool freed_after_retained = false;  // an allocation of a counted iteration outlived a window,
                                      // then was freed before the run's end: the site's pattern
                                      // is inter-iteration
};

// The allocations of counted iterations that the run never freed (live at the end of the trace, or
// freed after the run's end) that some window retains, split by their site's fate (the rules
// below): what classifies a window's retained bytes, and any other set of live bytes that holds
// every one of them from a window on while they are retained (an iteration's peak,
// analysis/peak_composition.h). The rest of such a set's counted bytes, freed in the run, is
// inter-iteration.
class NeverFreed {
 public:
  struct Split {
    Tally leak;
    Tally persistent;  // allocated once and kept: lazily created state
    Tally cached;      // a leak's, on a caching allocator's reserved level (report/levels.h)
  };
  // Never-freed bytes that window `window` retains (first retainable in windows <= `window`, not
  // freed before it ended): of one site, of one slot.
  Split ofSite(uint32_t site, uint32_t window) const;
  Split ofSlot(uint16_t slot, uint32_t window) const;
  // `bytes` of one site, all never freed in the run, split by the site's fate.
  Split ofSiteAll(uint32_t site, const Tally& bytes) const;
  // The fate of a site's never-freed allocations: the class the rules give them; nullopt when the
  // site has none that a window retains.
  std::optional<RetentionClass> fateOf(uint32_t site) const;
  // The trace ended inside its last iteration (whose window is skipped): the iteration came after
  // the run's end, and what it freed was never freed in the run.
  bool endedInside() const { return ended_inside_; }

 private:
  friend class Retention;
  // A step function over the windows: the bytes that begin (or end) at or before a window.
  struct Steps {
    std::vector<uint32_t> window;  // ascending
    std::vector<Split> cumulative;
    void add(uint32_t w, const Split& bytes);
    Split upTo(uint32_t w) const;
  };
  struct Retained {
    Steps born;               // by first window
    Steps freed;              // by end window: from it on, no longer retained
    bool leak = false;        // the site's fate: a leak,
    bool persistent = false;  // persistent,
    bool cached = false;      // cached (a reserved level's), or (none) inter-iteration
    Split in(uint32_t window) const;
  };
  std::unordered_map<uint32_t, Retained> sites_;
  std::vector<Retained> slots_;
  bool ended_inside_ = false;
};

// Retained bytes of one window once the trace has ended and every allocation's fate is known.
struct RetainedWindow {
  std::vector<RetainedTally> per_slot;                  // indexed by Timeline slot
  std::vector<std::pair<uint32_t, RetainedTally>> top;  // (site index, retained), ranked
};

// Retained in idle window i: allocations live throughout the window (allocated before it began,
// not freed before it ended). Streaming: each site keeps its live bytes; a window starts as a copy
// of them and loses what is freed during it, so the work per event is O(1) and per window
// O(sites). Classes need each allocation's fate at the run's end (the end of its last complete
// iteration; what comes after, teardown, decides no class), known only once the trace has ended;
// a free is part of the run once another iteration ends after it. finish() splits what counted
// iterations allocated into freed in the run (inter-iteration) and never freed in it (live at the
// end, or freed after the run's end): those are a leak when their site leaves such allocations
// from two or more iterations; else inter-iteration when other allocations of their site outlived
// a window and were freed in the run; else persistent (lazily created state). On a caching
// allocator's reserved level (report/levels.h) what would be a leak is cached: segments the
// allocator reserved in several iterations and keeps, its cache growing. docs/design.md has the
// rules.
class Retention {
 public:
  explicit Retention(uint32_t top_sites) : top_sites_(top_sites) {}

  [[gnu::always_inline]] uint32_t siteFor(uint16_t slot, trace::StackId stack) {
    // Writers hand out stack ids densely from 1: a plain array per slot finds most sites with one
    // load; rare large ids (or a hostile trace) go through the hash table. Only ids below
    // kDirectStacks are ever set in a row: a larger one finds kNoSite there.
    if (slot < direct_slots_) [[likely]] {
      const DirectRow& row = direct_[slot];
      if (stack < row.size && row.sites[stack] != kNoSite) [[likely]]
        return row.sites[stack];
    }
    return addSite(slot, stack);
  }

  // An allocation needs nothing here until it ends: what a window starts with is the live bytes
  // of each site, which beginWindow is given.
  [[gnu::always_inline]] void onFree(const LiveAlloc& alloc) {
    bool persistent = (alloc.flags & kBornPersistent) != 0;
    // windows_ holds the windows closed so far: one at or after first_window was outlived. The
    // free decides the site's pattern once another iteration ends (beginWindow); if none does, it
    // was teardown and the allocation counts as never freed.
    if (!persistent && closed_windows_ > alloc.first_window) [[unlikely]] {
      late_frees_.push_back(
          {alloc.size, alloc.site, alloc.first_window, closed_windows_, alloc.slot});
    }
    if (window_open_ && alloc.first_window <= window_) {
      Site& s = sites_[alloc.site];
      subtract(persistent ? s.window_persistent : s.window_counted, alloc.size);
    }
  }

  // Idle window `window` (after iteration `window`) starts. live_of(site) gives a site's live
  // bytes now, (allocated before the first counted iteration, later): the window's start.
  template <typename LiveOf>
  void beginWindow(uint32_t window, LiveOf&& live_of) {
    openWindow(window);
    for (uint32_t i = 0; i < sites_.size(); ++i) {
      std::tie(sites_[i].window_persistent, sites_[i].window_counted) = live_of(i);
    }
  }
  // Ends the open window and keeps its top sites: up to top_sites of them, and where the timeline
  // has allocator blocks, up to top_sites more of the blocks' sites, ranked apart and listed first.
  void endWindow(const Timeline& timeline);
  // The window after an iteration the trace ended inside: there is none, so it retains nothing.
  void skipWindow() {
    windows_.emplace_back().skipped = true;
    ++closed_windows_;
  }

  // Classifies every closed window. live: what is live at the end; reserved: per Timeline slot,
  // whether it is a caching allocator's reserved level (reservedSlots, timeline.h).
  std::vector<RetainedWindow> finish(const LiveSet& live, const std::vector<bool>& reserved) const;
  // The never-freed bytes by fate that finish() classifies with.
  NeverFreed neverFreed(const LiveSet& live, const std::vector<bool>& reserved) const;

  // Keeps, per window, every retaining site with its bytes (for linking findings to bytes): memory
  // grows by the retaining sites of each window. Off by default.
  void keepWindowSites(bool keep) { keep_window_sites_ = keep; }
  // (site index, retained bytes allocated in counted iterations) of window i; empty unless kept.
  const std::vector<std::pair<uint32_t, Tally>>& windowSites(size_t window) const {
    return windows_[window].sites;
  }

  size_t windowCount() const { return windows_.size(); }

  const Site& site(uint32_t index) const { return sites_[index]; }
  size_t siteCount() const { return sites_.size(); }

 private:
  static constexpr uint32_t kNoSite = UINT32_MAX;
  static constexpr trace::StackId kDirectStacks = 1u << 16;

  uint32_t addSite(uint16_t slot, trace::StackId stack);
  void openWindow(uint32_t window);

  struct SiteIndex {
    using Key = uint64_t;
    Key packed = 0;
    uint32_t site = kNoSite;
    static Key keyOf(uint16_t slot, trace::StackId stack) {
      return (static_cast<uint64_t>(slot) << 32) | stack;
    }
    Key key() const { return packed; }
    void setKey(Key k) { packed = k; }
    bool empty() const { return site == kNoSite; }
    static uint64_t hash(Key k) { return mixHash(k + 1); }
  };

  // What endWindow keeps of a window: exact per-slot totals, and its top sites.
  struct ClosedWindow {
    std::vector<std::pair<Tally, Tally>> per_slot;  // (persistent, counted) born
    std::vector<uint32_t> top;                      // site indexes
    std::vector<std::pair<Tally, Tally>> top_tallies;
    std::vector<std::pair<uint32_t, Tally>> sites;  // with keepWindowSites: counted bytes by site
    bool skipped = false;
  };
  // Appends the top_sites_ first of `candidates` (site indexes) to `w`'s top sites, ranked.
  void keepTop(std::vector<uint32_t>& candidates, ClosedWindow& w) const;

  // A free, since the last iteration ended, of a counted allocation that a closed window retained.
  struct LateFree {
    uint64_t size;
    uint32_t site;
    uint32_t first_window;
    uint32_t end_window;  // windows closed when it was freed: it was retained up to end_window - 1
    uint16_t slot;
  };

  static void subtract(Tally& t, uint64_t size) {
    t.bytes -= size;
    --t.count;
  }

  uint32_t top_sites_;
  bool keep_window_sites_ = false;
  // One slot's sites by stack id, for small ids (kNoSite where none): 16 bytes, so that the
  // per-event lookup finds a row with a shift and its length with one load.
  struct DirectRow {
    std::unique_ptr<uint32_t[]> sites;
    uint32_t size = 0;
  };
  std::vector<DirectRow> direct_;   // by slot
  uint32_t direct_slots_ = 0;       // direct_.size()
  uint32_t closed_windows_ = 0;     // windows_.size()
  FlatTable<SiteIndex> index_{64};  // the rest
  std::vector<Site> sites_;
  std::vector<ClosedWindow> windows_;
  std::vector<LateFree> late_frees_;  // since the last iteration ended: at most the live set then
  bool window_open_ = false;
  uint32_t window_ = 0;
};

}  // namespace memfloor::analysis
