// LiveSeries: live bytes over time, downsampled into at most N buckets, whatever the trace length.
#pragma once

#include <cstdint>
#include <vector>

#include "analysis/report.h"

namespace memfloor::analysis {

// Buckets start 1 µs wide; when a new bucket would exceed the limit, the width doubles and
// neighbouring buckets merge, so each event costs O(1) amortized and memory stays O(max_points).
// A bucket's min and max include the value carried in from the bucket before it: the series
// never misses a floor that lasted across a bucket boundary. Aligned to 64 bytes, its size: the
// replay finds a slot's series with a shift.
class alignas(64) LiveSeries {
 public:
  explicit LiveSeries(uint32_t max_points) : max_points_(max_points < 2 ? 2 : max_points) {}

  // Live bytes became `live` at `timestamp` (non-decreasing; an earlier one joins the last bucket).
  void record(uint64_t timestamp, uint64_t live) { update<true, true>(timestamp, live); }
  // The same when live bytes rose (an allocation) or fell (a free): only the bucket's max, or only
  // its min, can change then, and the replay skips the other compare.
  void recordRise(uint64_t timestamp, uint64_t live) { update<false, true>(timestamp, live); }
  void recordFall(uint64_t timestamp, uint64_t live) { update<true, false>(timestamp, live); }

  TimelineSeries finish(const MemoryKey& key) const { return {key, bucket_ns_, points_}; }

 private:
  template <bool kMin, bool kMax>
  void update(uint64_t timestamp, uint64_t live) {
    if (timestamp < bucket_end_) {
      TimelinePoint& p = points_.back();
      if constexpr (kMin) {
        if (live < p.min) p.min = live;
      }
      if constexpr (kMax) {
        if (live > p.max) p.max = live;
      }
      p.last = live;
      return;
    }
    open(timestamp, live);
  }
  void open(uint64_t timestamp, uint64_t live);
  void coarsen();

  uint32_t max_points_;
  uint64_t origin_ = 0;
  uint64_t bucket_ns_ = 1000;
  uint64_t bucket_end_ = 0;  // the last bucket's start + bucket_ns_ (wrapping); 0 while empty
  std::vector<TimelinePoint> points_;
};

}  // namespace memfloor::analysis
