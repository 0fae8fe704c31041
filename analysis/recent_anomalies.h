// RecentAnomalies: the pairing anomalies of the trace's last stretch, by time, in O(1) memory.
//
// A trace cut short (SIGKILL, no trailer) lacks up to one flush period of memory records before
// its last one: the hook seals every buffer CUPTI delivers as a chunk, and CUPTI delivers at least
// once per period. Double allocations and unmatched frees in that stretch are then artifacts of
// the cut (a lost free, a lost allocation), not of the program; the report keeps them apart.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>

#include "analysis/report.h"

namespace memfloor::analysis {

class RecentAnomalies {
 public:
  // Keeps anomalies of the last two periods; 0 (unknown) keeps nothing.
  void setPeriod(uint64_t period_ns) {
    period_ns_ = period_ns;
    width_ = period_ns / kBucketsPerPeriod + 1;
    any_ = false;
    buckets_ = {};
  }
  uint64_t period() const { return period_ns_; }

  void add(uint64_t timestamp, bool double_allocation, uint64_t bytes) {
    if (period_ns_ == 0) return;
    const uint64_t b = timestamp / width_;
    if (!any_) head_ = b, any_ = true;
    if (b > head_) {
      // Clear the buckets the window slides over (all of them after a long gap). Counted steps,
      // not bounds: timestamps near 2^64 must not wrap a bound.
      const uint64_t steps = std::min(b - head_, kBuckets);
      for (uint64_t i = 1; i <= steps; ++i) buckets_[(head_ + i) % kBuckets] = {};
      head_ = b;
    } else if (head_ - b >= kBuckets) {
      return;  // older than the window: out of order, and never in the tail
    }
    Bucket& bucket = buckets_[b % kBuckets];
    (double_allocation ? bucket.double_allocations : bucket.unmatched_frees).add(bytes);
  }

  // The anomalies at or after `from_ns`, counted by bucket: up to period/32 before it too.
  CutTail since(uint64_t from_ns) const {
    CutTail tail;
    tail.known = true;
    tail.from_ns = from_ns;
    if (!any_) return tail;
    const uint64_t oldest = head_ >= kBuckets - 1 ? head_ - (kBuckets - 1) : 0;
    const uint64_t first = std::max(oldest, from_ns / width_);
    if (first > head_) return tail;
    for (uint64_t i = 0; i <= head_ - first; ++i) {  // at most kBuckets steps
      const Bucket& bucket = buckets_[(first + i) % kBuckets];
      tail.unmatched_frees += bucket.unmatched_frees;
      tail.double_allocations += bucket.double_allocations;
    }
    return tail;
  }

 private:
  static constexpr uint64_t kBucketsPerPeriod = 32;
  static constexpr uint64_t kBuckets = 2 * kBucketsPerPeriod;
  struct Bucket {
    Tally unmatched_frees;
    Tally double_allocations;
  };

  uint64_t period_ns_ = 0;
  uint64_t width_ = 1;
  uint64_t head_ = 0;  // the newest bucket: timestamp / width_
  bool any_ = false;
  std::array<Bucket, kBuckets> buckets_{};
};

}  // namespace memfloor::analysis
