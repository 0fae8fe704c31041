// LiveSeries: opening buckets and halving the resolution.
#include "analysis/live_series.h"

#include <algorithm>

namespace memfloor::analysis {

void LiveSeries::open(uint64_t timestamp, uint64_t live) {
  uint64_t carried = live;
  if (points_.empty()) {
    origin_ = timestamp;
  } else {
    carried = points_.back().last;
  }
  for (;;) {
    uint64_t start = origin_ + (timestamp - origin_) / bucket_ns_ * bucket_ns_;
    if (!points_.empty() && start == points_.back().start_ns) {
      // Merged into the last bucket (whose end wrapped past 2^64, or which coarsening widened).
      TimelinePoint& p = points_.back();
      p.min = std::min(p.min, live);
      p.max = std::max(p.max, live);
      p.last = live;
      return;
    }
    if (points_.size() < max_points_) {
      points_.push_back({start, std::min(carried, live), std::max(carried, live), live});
      bucket_end_ = start + bucket_ns_;
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
  bucket_end_ = points_.empty() ? 0 : points_.back().start_ns + bucket_ns_;
}

}  // namespace memfloor::analysis
