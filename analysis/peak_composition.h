// PeakComposition: what is live at each iteration's peak, by site and by when it was made.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "analysis/live_set.h"
#include "analysis/report.h"
#include "analysis/retention.h"

namespace memfloor::analysis {

// Live bytes by when they were made, relative to the iteration open now (or the last one).
struct Ages {
  Tally persistent;  // before the first counted iteration (kBornPersistent)
  Tally earlier;     // in counted time before the idle window that precedes the iteration
  Tally before;      // in that idle window (kBornInWindow)
  Tally iteration;   // in the iteration
  Tally after;       // in the idle window after it: the next iteration's `before`

  // The next iteration begins: what was `before` and `iteration` is earlier now.
  void age() {
    earlier += before;
    earlier += iteration;
    before = after;
    iteration = {};
    after = {};
  }
};

// One slot's peak in one iteration, before the earlier bytes are classified (finish()).
struct AgedPeak {
  uint64_t at_ns = 0;
  Ages live;
  std::vector<std::pair<uint32_t, Ages>> sites;  // (Retention's site index, bytes), ranked
};

// The peak of an iteration is known only once it has ended, and memory climbs to it through many
// new maxima: copying every site's bytes at each one would cost O(sites) per event on the way up.
// Instead each site keeps its bytes now and at the last maximum; an event marks its site dirty,
// and a new maximum of the slot copies only the dirty sites, each of which an event since the last
// maximum dirtied: O(1) amortized per event, O(sites) per iteration boundary, memory O(sites).
// Ages are relative to the open iteration, so a boundary moves every site's bytes one age on.
class PeakComposition {
 public:
  explicit PeakComposition(uint32_t top_sites) : top_sites_(top_sites) {}

  // After the allocation was opened and counted in the Timeline.
  void onAlloc(const LiveAlloc& alloc, uint64_t timestamp) {
    SiteAges& site = siteOf(alloc);
    SlotAges& slot = slots_[alloc.slot];
    ageOf(site.now, alloc).add(alloc.size);
    ageOf(slot.now, alloc).add(alloc.size);
    slot.live += alloc.size;
    if (!in_iteration_) return;
    touch(site, slot, alloc.site);
    // The first time the most is reached: equal bytes later are no new peak.
    if (slot.live > slot.peak) {
      slot.peak = slot.live;
      slot.at_ns = timestamp;
      flush(slot);
    }
  }

  void onFree(const LiveAlloc& alloc) {
    SiteAges& site = sites_[alloc.site];
    SlotAges& slot = slots_[alloc.slot];
    subtract(ageOf(site.now, alloc), alloc.size);
    subtract(ageOf(slot.now, alloc), alloc.size);
    slot.live -= alloc.size;
    if (in_iteration_) touch(site, slot, alloc.site);
  }

  void beginIteration(uint32_t index, uint64_t start_ns);  // iteration `index` (0-based)
  void endIteration();

  // Per iteration, per slot (Timeline's; slot_count of them): the peak by class, the earlier
  // bytes classified as the window before the iteration classifies them, and its top sites.
  struct Peak {
    uint64_t at_ns = 0;
    PeakTally live;
    std::vector<std::pair<uint32_t, PeakTally>> sites;  // (site index, bytes), ranked
  };
  std::vector<std::vector<Peak>> finish(const NeverFreed& never_freed, size_t slot_count) const;

 private:
  struct SiteAges {
    Ages now;
    Ages at_peak;  // at the slot's last maximum in the open iteration
    uint16_t slot = kNoSlot;
    bool dirty = false;  // changed since the last maximum
  };
  struct SlotAges {
    Ages now;
    Ages at_peak;
    uint64_t live = 0;
    uint64_t peak = 0;  // the most live bytes in the open iteration
    uint64_t at_ns = 0;
    std::vector<uint32_t> dirty;  // sites changed since the last maximum
  };

  Tally& ageOf(Ages& ages, const LiveAlloc& a) const {
    if ((a.flags & kBornPersistent) != 0) return ages.persistent;
    if (a.first_window < iteration_) return ages.earlier;
    if (a.first_window > iteration_) return ages.after;
    return (a.flags & kBornInWindow) != 0 ? ages.before : ages.iteration;
  }
  SiteAges& siteOf(const LiveAlloc& alloc) {
    if (alloc.site >= sites_.size()) [[unlikely]]
      grow(alloc);
    return sites_[alloc.site];
  }
  static void touch(SiteAges& site, SlotAges& slot, uint32_t index) {
    if (!site.dirty) {
      site.dirty = true;
      slot.dirty.push_back(index);
    }
  }
  void flush(SlotAges& slot) {
    slot.at_peak = slot.now;
    for (uint32_t index : slot.dirty) {
      sites_[index].at_peak = sites_[index].now;
      sites_[index].dirty = false;
    }
    slot.dirty.clear();
  }
  static void subtract(Tally& t, uint64_t size) {
    t.bytes -= size;
    --t.count;
  }
  void grow(const LiveAlloc& alloc);

  uint32_t top_sites_;
  bool in_iteration_ = false;
  uint32_t iteration_ = 0;                    // the open iteration, or the last one
  uint64_t start_ns_ = 0;                     // of the open iteration
  std::vector<SiteAges> sites_;               // by Retention's site index
  std::vector<SlotAges> slots_;               // by Timeline's slot
  std::vector<std::vector<AgedPeak>> peaks_;  // closed iterations, by slot
  std::vector<uint64_t> starts_;              // closed iterations' start
};

}  // namespace memfloor::analysis
