// IdleCuts: the longest quiet gaps of each cycle and the choice of its idle window.
#include "analysis/idle_cuts.h"

#include <algorithm>

namespace memfloor::analysis {

void IdleCuts::onMemoryEvent(uint64_t ordinal, uint64_t timestamp, uint64_t previous_ns,
                             uint64_t live, bool is_anchor) {
  // The gap this event ends belongs to the cycle it closes, when it is a mark.
  const Gap gap{timestamp - previous_ns, live, ordinal};
  if (gaps_.size() < kKeptGaps) {
    gaps_.push_back(gap);
    std::push_heap(gaps_.begin(), gaps_.end(), longer);
  } else if (longer(gap, gaps_.front())) {
    std::pop_heap(gaps_.begin(), gaps_.end(), longer);
    gaps_.back() = gap;
    std::push_heap(gaps_.begin(), gaps_.end(), longer);
  }
  if (!is_anchor) return;
  const uint32_t occurrence = occurrences_++;
  if (occurrence % period_.every != 0) return;
  // Before the first mark is the set-up, not a cycle.
  if (occurrence > 0) closeCycle();
  gaps_.clear();
}

void IdleCuts::closeCycle() {
  if (gaps_.empty()) return;
  uint64_t longest = 0;
  for (const Gap& g : gaps_) longest = std::max(longest, g.length);
  const Gap* best = nullptr;
  for (const Gap& g : gaps_) {
    if (g.length < longest - longest / 2) continue;  // shorter than half the longest
    if (best == nullptr || g.live < best->live || (g.live == best->live && longer(g, *best))) {
      best = &g;
    }
  }
  cuts_.push_back(best->ordinal);
}

std::optional<DetectedIterations> IdleCuts::finish() const {
  if (cuts_.size() < 2) return std::nullopt;
  return DetectedIterations{period_, cuts_};
}

}  // namespace memfloor::analysis
