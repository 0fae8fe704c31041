// PeakComposition: what is live at each iteration's peak, by site and by when it was made.
#pragma once

#include <algorithm>
#include <array>
#include <cassert>
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
};

// One slot's peak in one iteration, before the earlier bytes are classified (finish()).
struct AgedPeak {
  uint64_t at_ns = 0;
  Ages live;
  std::vector<std::pair<uint32_t, Ages>> sites;     // (Retention's site index, bytes), ranked
  std::vector<std::pair<uint32_t, Tally>> modules;  // (ModuleGroups' group, bytes), ranked
};

// The peak of an iteration is known only once it has ended, and memory climbs to it through many
// new maxima: copying every site's bytes at each one would cost O(sites) per event on the way up.
// Instead each of a site's tallies by age is copied on write: a slot counts its maxima, and an
// event that changes a tally not changed since the slot's last maximum first saves its value
// there. At the end of the iteration a tally's value at the peak is the saved one if it changed
// after the last maximum, else its value now. O(1) per event, no copy at a maximum, O(sites) per
// iteration boundary; memory O(sites). Ages are relative to the open iteration, so a boundary
// moves every site's bytes one age on.
class PeakComposition {
 public:
  explicit PeakComposition(uint32_t top_sites) : top_sites_(top_sites) {}

  // A new site (Retention's index, the next one) of `slot`, before its first allocation.
  void addSite(uint32_t site, uint16_t slot);

  // The allocations made from now on until the next iteration boundary are born with these
  // (the replay's attribution, LiveAlloc's first_window and flags): their age, the same for all
  // of them, is taken once here rather than per allocation.
  void setBirth(uint32_t first_window, uint8_t flags) {
    LiveAlloc born;
    born.first_window = first_window;
    born.flags = flags;
    birth_age_ = ageOf(born);
  }

  // An allocation born as setBirth() said last.
  [[gnu::always_inline]] void onAlloc(const LiveAlloc& alloc) {
    assert(alloc.site < sites_.size() && "an allocation of a site never added");
    assert(ageOf(alloc) == birth_age_ && "an allocation born otherwise than setBirth() said");
    write(sites_[alloc.site].cells[birth_age_], slots_[alloc.slot]).add(alloc.size);
  }
  // After onAlloc: the allocation made a new peak of its slot's open phase (the Timeline's test,
  // which an iteration's peak shares: both start at the live bytes when the iteration begins).
  void onMaximum(uint16_t slot_index, uint64_t timestamp) {
    if (!in_iteration_) return;  // outside an iteration no peak is taken
    SlotPeak& slot = slots_[slot_index];
    slot.at_ns = timestamp;
    ++slot.maximum;
  }

  // A site's live bytes now: (allocated before the first counted iteration, later).
  std::pair<Tally, Tally> liveOf(uint32_t site) const {
    const std::array<Cell, kAgeCount>& c = sites_[site].cells;
    Tally counted = c[kEarlier].now;
    counted += c[kBefore].now;
    counted += c[kIteration].now;
    counted += c[kAfter].now;
    return {c[kPersistent].now, counted};
  }

  // The module group (module_groups.h) of a site, before its first allocation; a site never
  // given one has none.
  void setModule(uint32_t site, uint32_t group) {
    if (site >= modules_.size()) modules_.resize(site + 1u, 0);
    modules_[site] = group;
    module_count_ = std::max<size_t>(module_count_, group + 1u);
  }

  [[gnu::always_inline]] void onFree(const LiveAlloc& alloc) {
    Tally& t = write(sites_[alloc.site].cells[ageOf(alloc)], slots_[alloc.slot]);
    t.bytes -= alloc.size;
    --t.count;
  }

  // Iteration `index` (0-based) begins.
  void beginIteration(uint32_t index, uint64_t start_ns);
  void endIteration();

  // Per iteration, per slot (Timeline's; slot_count of them): the peak by class, the earlier
  // bytes classified as the window before the iteration classifies them, its top sites and, where
  // any site has a module, its top module groups (kNone among them).
  struct Peak {
    uint64_t at_ns = 0;
    PeakTally live;
    std::vector<std::pair<uint32_t, PeakTally>> sites;  // (site index, bytes), ranked
    std::vector<std::pair<uint32_t, Tally>> modules;    // (module group, bytes), ranked
  };
  std::vector<std::vector<Peak>> finish(const NeverFreed& never_freed, size_t slot_count) const;

 private:
  enum Age : uint8_t { kPersistent, kEarlier, kBefore, kIteration, kAfter, kAgeCount };
  struct Cell {
    Tally now;
    Tally saved;         // `now` at the slot's maximum `stamp`
    uint64_t stamp = 0;  // the slot's maximum when `saved` was taken
  };
  // Aligned to 64 bytes: 256, so that the replay finds a site with a shift.
  struct alignas(64) SiteAges {
    std::array<Cell, kAgeCount> cells;
    uint16_t slot = kNoSlot;
  };
  static_assert(sizeof(SiteAges) == 256);
  struct SlotPeak {
    uint64_t at_ns = 0;    // when the open iteration's peak was first reached
    uint64_t maximum = 0;  // counts the maxima (the iteration's start is one)
  };

  Age ageOf(const LiveAlloc& a) const {
    // Most frees end an allocation of the iteration open now (or of the last one, in the window
    // after it): one test, not the arithmetic below, whose phase would be 1.
    if ((a.flags & (kBornPersistent | kBornInWindow)) == 0 && a.first_window == iteration_) {
      return kIteration;
    }
    if ((a.flags & kBornPersistent) != 0) return kPersistent;
    // The phases around iteration i are window i - 1 (2i), iteration i (2i + 1) and window i
    // (2i + 2); a.first_window is i for the first two, i + 1 for the third.
    const int64_t phase = 2 * static_cast<int64_t>(a.first_window) +
                          static_cast<int64_t>((a.flags & kBornInWindow) == 0) -
                          2 * static_cast<int64_t>(iteration_);
    assert(phase <= 2 && "an allocation made after the window that follows the iteration");
    return phase < 0 ? kEarlier : static_cast<Age>(kBefore + phase);
  }
  // The cell's tally, its value at the slot's last maximum saved first. (Outside an iteration no
  // maximum is taken: what is saved then is never read.)
  Tally& write(Cell& cell, const SlotPeak& slot) const {
    if (cell.stamp != slot.maximum) {
      cell.saved = cell.now;
      cell.stamp = slot.maximum;
    }
    return cell.now;
  }
  // The site's bytes at its slot's last maximum.
  Ages atPeak(const SiteAges& site) const;

  uint32_t top_sites_;
  bool in_iteration_ = false;
  uint32_t iteration_ = 0;                    // the open iteration, or the last one
  Age birth_age_ = kPersistent;               // of an allocation made now (setBirth)
  uint64_t start_ns_ = 0;                     // of the open iteration
  std::vector<SiteAges> sites_;               // by Retention's site index
  std::vector<SlotPeak> slots_;               // by Timeline's slot
  std::vector<std::vector<AgedPeak>> peaks_;  // closed iterations, by slot
  std::vector<uint64_t> starts_;              // closed iterations' start
  std::vector<Tally> last_earlier_;           // by site: the earlier bytes at the last peak
  std::vector<uint32_t> modules_;             // by site: its module group (0: none)
  size_t module_count_ = 1;                   // groups given, kNone counted
};

}  // namespace memfloor::analysis
