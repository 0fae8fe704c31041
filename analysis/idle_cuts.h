// IdleCuts: where to cut iterations in a trace without iteration markers, once PeriodDetector has
// found its period (docs/design.md, "Detected iterations").
#pragma once

#include <cstdint>
#include <optional>
#include <utility>
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
// no memory event): among the cycle's kKeptGaps longest, those at least half as long as the
// longest, the one with the fewest live bytes (then the longer, then the earlier). An iteration
// begins with the memory event that ends it. O(log kKeptGaps) per memory event, O(kKeptGaps)
// memory besides the cuts.
class IdleCuts {
 public:
  static constexpr size_t kKeptGaps = 64;

  explicit IdleCuts(DetectedPeriod period) : period_(std::move(period)) {}

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
  };
  static bool longer(const Gap& a, const Gap& b) {  // of equal length, the earlier
    return a.length != b.length ? a.length > b.length : a.ordinal < b.ordinal;
  }
  void closeCycle();

  DetectedPeriod period_;
  uint32_t occurrences_ = 0;
  std::vector<Gap> gaps_;  // the open cycle's longest: a heap with the one to drop first on top
  std::vector<uint64_t> cuts_;
};

}  // namespace memfloor::analysis
