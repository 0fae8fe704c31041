// Trend: least-squares slope of the idle floors and the verdict rule.
#include "analysis/trend.h"

#include <algorithm>
#include <cmath>

namespace memfloor::analysis {

Trend fitTrend(MemoryKey key, std::span<const uint64_t> floors, uint32_t first_iteration) {
  Trend t;
  t.key = key;
  t.points = static_cast<uint32_t>(floors.size());
  if (floors.empty()) return t;
  t.first_iteration = first_iteration;
  t.last_iteration = first_iteration + t.points - 1;
  t.first_floor = floors.front();
  t.last_floor = floors.back();

  // Centered sums keep the doubles exact enough for floors of hundreds of GiB.
  const double n = static_cast<double>(floors.size());
  const double mean_x = (n - 1) / 2;
  double mean_y = 0;
  for (uint64_t y : floors) mean_y += static_cast<double>(y) / n;
  double sxy = 0, sxx = 0;
  for (size_t i = 0; i < floors.size(); ++i) {
    double dx = static_cast<double>(i) - mean_x;
    sxy += dx * (static_cast<double>(floors[i]) - mean_y);
    sxx += dx * dx;
  }
  double slope = sxx > 0 ? sxy / sxx : 0;
  t.slope_bytes_per_iteration = std::llround(slope);
  t.growth_bytes = std::llround(slope * (n - 1));
  t.threshold_bytes = std::max<uint64_t>(kTrendMinGrowthBytes,
                                         static_cast<uint64_t>(mean_y * kTrendGrowthFraction));
  if (t.points < kTrendMinPoints) {
    t.verdict = TrendVerdict::kUnknown;
  } else if (t.growth_bytes > 0 && static_cast<uint64_t>(t.growth_bytes) > t.threshold_bytes) {
    t.verdict = TrendVerdict::kGrowing;
  } else {
    t.verdict = TrendVerdict::kStable;
  }
  return t;
}

}  // namespace memfloor::analysis
