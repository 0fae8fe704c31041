// LiveSeries: live bytes over time, downsampled into at most N buckets, whatever the trace length.
#pragma once

#include <cstdint>
#include <vector>

#include "reports/report.h"

namespace memfloor::reports {

// Buckets start 1 µs wide; when a new bucket would exceed the limit, the width doubles and
// neighbouring buckets merge, so each event costs O(1) amortized and memory stays O(max_points).
// A bucket's min and max include the value carried in from the bucket before it: the series
// never misses a floor that lasted across a bucket boundary.
class LiveSeries {
 public:
  explicit LiveSeries(uint32_t max_points) : max_points_(max_points < 2 ? 2 : max_points) {}

  // Live bytes became `live` at `timestamp` (non-decreasing; an earlier one joins the last bucket).
  void record(uint64_t timestamp, uint64_t live) {
    if (!points_.empty() && timestamp < points_.back().start_ns + bucket_ns_) {
      TimelinePoint& p = points_.back();
      if (live < p.min) p.min = live;
      if (live > p.max) p.max = live;
      p.last = live;
      return;
    }
    open(timestamp, live);
  }

  TimelineSeries finish(const MemoryKey& key) const { return {key, bucket_ns_, points_}; }

 private:
  void open(uint64_t timestamp, uint64_t live);
  void coarsen();

  uint32_t max_points_;
  uint64_t origin_ = 0;
  uint64_t bucket_ns_ = 1000;
  std::vector<TimelinePoint> points_;
};

}  // namespace memfloor::reports
