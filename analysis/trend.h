// Trend: the idle-floor slope over the counted iterations and its verdict.
#pragma once

#include <cstdint>
#include <span>

#include "analysis/report.h"

namespace memfloor::analysis {

// The verdict rule (docs/design.md, "Trend"): fit live bytes = a + slope * iteration by least
// squares over the counted idle windows; the fitted growth across them is slope * (points - 1).
// "growing" when that growth exceeds the larger of kTrendMinGrowthBytes and kTrendGrowthFraction of
// the mean floor; "unknown" with fewer than kTrendMinPoints windows. Noise from the allocator
// (a few blocks here and there) stays under the absolute floor; a leak of a few MiB per iteration
// crosses it within a handful of iterations.
inline constexpr uint32_t kTrendMinPoints = 3;
inline constexpr uint64_t kTrendMinGrowthBytes = 1ull << 20;  // 1 MiB
inline constexpr double kTrendGrowthFraction = 0.01;          // 1% of the mean idle floor

// floors: the idle floor of consecutive windows; first_iteration: 1-based index of floors[0].
Trend fitTrend(MemoryKey key, std::span<const uint64_t> floors, uint32_t first_iteration);

}  // namespace memfloor::analysis
