// IdleCuts: where to cut iterations in a trace without iteration markers, once PeriodDetector has
// found its period (docs/design.md, "Detected iterations").
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <vector>

#include "analysis/report.h"

namespace memfloor::analysis {

// Where a replay without markers cuts iterations: before these memory events (0-based ordinals
// among allocations, frees and pool events, in replay order), each ending a quiet gap.
struct DetectedIterations {
  DetectedPeriod period;
  std::vector<uint64_t> cuts;  // ascending
};

// The period's allocation, every `every`-th occurrence from the first, marks one point per period:
// a cycle runs from one mark to the next. The idle window of a cycle is a quiet gap (a time with
// no memory event) that ends in the cycle's last period (the period and its tolerance before the
// mark that closes it: all of a cycle the period describes; of a longer one, the set-up's tail or
// a stall, only the end): among the longest such gaps, those at least half as long as the
// longest, the one with the fewest live bytes (then the longer, then the earlier). An iteration
// begins with the memory event that ends it. O(log kKeptGaps) per memory event, O(kParts *
// kKeptGaps) memory besides the cuts.
class IdleCuts {
 public:
  static constexpr size_t kKeptGaps = 64;  // the longest of each part
  // A cycle's gaps are kept by part, each half of the searched span long: the last kParts parts
  // hold every gap of that span before any mark.
  static constexpr size_t kParts = 3;

  // A period of 0 ns (unknown) searches the whole of every cycle.
  explicit IdleCuts(DetectedPeriod period);

  // Memory event `ordinal` at timestamp; the one before it came at previous_ns, and `live` bytes
  // (all slots) were live between them. is_anchor: it is an occurrence of the period's allocation.
  void onMemoryEvent(uint64_t ordinal, uint64_t timestamp, uint64_t previous_ns, uint64_t live,
                     bool is_anchor);

  // The cuts, one per closed cycle; empty when there are fewer than two.
  std::optional<DetectedIterations> finish() const;

 private:
  struct Gap {
    uint64_t length = 0;
    uint64_t live = 0;
    uint64_t ordinal = 0;  // of the event that ends it
    uint64_t end_ns = 0;   // that event's time
  };
  static bool longer(const Gap& a, const Gap& b) {  // of equal length, the earlier
    return a.length != b.length ? a.length > b.length : a.ordinal < b.ordinal;
  }
  void advance(uint64_t timestamp);  // to the part `timestamp` falls in
  void keep(const Gap& gap);
  void closeCycle(uint64_t mark_ns);
  void startCycle(uint64_t mark_ns);

  DetectedPeriod period_;
  uint64_t span_ns_ = 0;  // searched before each mark; 0: the whole cycle
  uint64_t part_ns_ = 0;  // half of it, rounded up
  uint32_t occurrences_ = 0;
  uint64_t cycle_start_ns_ = 0;
  uint64_t part_ = 0;                           // the open part's index in the open cycle
  std::array<std::vector<Gap>, kParts> parts_;  // part p at [p % kParts]: a heap of its longest,
                                                // the one to drop first on top
  std::vector<uint64_t> cuts_;
};

}  // namespace memfloor::analysis
