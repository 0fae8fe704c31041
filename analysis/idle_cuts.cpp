// IdleCuts: the longest quiet gaps of each cycle's last period and the choice of its idle window.
#include "analysis/idle_cuts.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "analysis/period_detector.h"

namespace memfloor::analysis {

IdleCuts::IdleCuts(DetectedPeriod period) : period_(std::move(period)) {
  const auto tolerance = static_cast<uint64_t>(
      std::llround(static_cast<double>(period_.period_ns) * PeriodDetector::kTolerance));
  span_ns_ =
      period_.period_ns > UINT64_MAX - tolerance ? UINT64_MAX : period_.period_ns + tolerance;
  part_ns_ = span_ns_ / 2 + span_ns_ % 2;
}

void IdleCuts::onMemoryEvent(uint64_t ordinal, uint64_t timestamp, uint64_t previous_ns,
                             uint64_t live, bool is_anchor) {
  // The gap this event ends belongs to the cycle it closes, when it is a mark.
  advance(timestamp);
  keep({timestamp - previous_ns, live, ordinal, timestamp});
  if (!is_anchor) return;
  const uint32_t occurrence = occurrences_++;
  if (occurrence % period_.every != 0) return;
  // Before the first mark is the set-up, not a cycle.
  if (occurrence > 0) closeCycle(timestamp);
  startCycle(timestamp);
}

void IdleCuts::advance(uint64_t timestamp) {
  if (part_ns_ == 0 || timestamp < cycle_start_ns_) return;  // one part: the whole cycle
  const uint64_t part = (timestamp - cycle_start_ns_) / part_ns_;
  // Parts that begin now, and those a long quiet time skipped, start empty.
  for (uint64_t p = part_ + 1; p <= part && p <= part_ + kParts; ++p) parts_[p % kParts].clear();
  part_ = std::max(part_, part);
}

void IdleCuts::keep(const Gap& gap) {
  std::vector<Gap>& heap = parts_[part_ % kParts];
  if (heap.size() < kKeptGaps) {
    heap.push_back(gap);
    std::push_heap(heap.begin(), heap.end(), longer);
  } else if (longer(gap, heap.front())) {
    std::pop_heap(heap.begin(), heap.end(), longer);
    heap.back() = gap;
    std::push_heap(heap.begin(), heap.end(), longer);
  }
}

void IdleCuts::startCycle(uint64_t mark_ns) {
  for (std::vector<Gap>& heap : parts_) heap.clear();
  cycle_start_ns_ = mark_ns;
  part_ = 0;
}

void IdleCuts::closeCycle(uint64_t mark_ns) {
  // What ends in the cycle's last period: a long first cycle (a warm-up step) holds long quiet
  // gaps with few bytes live before the model's state exists, and cutting there would move the
  // first boundary with the anchor's first occurrence, i.e. with where the trace starts.
  const uint64_t from = part_ns_ == 0 || mark_ns < span_ns_ ? 0 : mark_ns - span_ns_;
  uint64_t longest = 0;
  for (const std::vector<Gap>& heap : parts_) {
    for (const Gap& g : heap) {
      if (g.end_ns >= from) longest = std::max(longest, g.length);
    }
  }
  const Gap* best = nullptr;
  for (const std::vector<Gap>& heap : parts_) {
    for (const Gap& g : heap) {
      // Shorter than half the longest: a pause inside the step, not its idle window.
      if (g.end_ns < from || g.length < longest - longest / 2) continue;
      if (best == nullptr || g.live < best->live || (g.live == best->live && longer(g, *best))) {
        best = &g;
      }
    }
  }
  if (best != nullptr) cuts_.push_back(best->ordinal);
}

std::optional<DetectedIterations> IdleCuts::finish() const {
  if (cuts_.size() < 2) return std::nullopt;
  return DetectedIterations{period_, cuts_};
}

}  // namespace memfloor::analysis
