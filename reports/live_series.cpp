// LiveSeries: opening buckets and halving the resolution.
#include "reports/live_series.h"

#include <algorithm>

namespace memfloor::reports {

void LiveSeries::open(uint64_t timestamp, uint64_t live) {
  uint64_t carried = live;
  if (points_.empty()) {
    origin_ = timestamp;
  } else {
    carried = points_.back().last;
  }
  for (;;) {
    uint64_t start = origin_ + (timestamp - origin_) / bucket_ns_ * bucket_ns_;
    if (!points_.empty() && start == points_.back().start_ns) {  // merged into the last bucket
      record(timestamp, live);
      return;
    }
    if (points_.size() < max_points_) {
      points_.push_back({start, std::min(carried, live), std::max(carried, live), live});
      return;
    }
    coarsen();
  }
}

void LiveSeries::coarsen() {
  bucket_ns_ *= 2;
  size_t out = 0;
  for (size_t i = 0; i < points_.size(); ++i) {
    TimelinePoint p = points_[i];
    p.start_ns = origin_ + (p.start_ns - origin_) / bucket_ns_ * bucket_ns_;
    if (out > 0 && points_[out - 1].start_ns == p.start_ns) {
      TimelinePoint& q = points_[out - 1];
      q.min = std::min(q.min, p.min);
      q.max = std::max(q.max, p.max);
      q.last = p.last;
    } else {
      points_[out++] = p;
    }
  }
  points_.resize(out);
}

}  // namespace memfloor::reports
