// Tests of fitTrend: least-squares slope and the stable/growing/unknown verdict.
#include "analysis/trend.h"

#include <catch2/catch.hpp>
#include <vector>

namespace memfloor::analysis {
namespace {

constexpr uint64_t kMiB = 1 << 20;
constexpr uint64_t kGiB = 1ull << 30;

Trend fit(const std::vector<uint64_t>& floors, uint32_t first = 1) {
  return fitTrend({0, trace::MemoryKind::kDevice}, floors, first);
}

TEST_CASE("A flat idle floor is stable", "[trend]") {
  Trend t = fit({10 * kGiB, 10 * kGiB, 10 * kGiB, 10 * kGiB});
  CHECK(t.verdict == TrendVerdict::kStable);
  CHECK(t.slope_bytes_per_iteration == 0);
  CHECK(t.points == 4);
  CHECK(t.first_iteration == 1);
  CHECK(t.last_iteration == 4);
}

TEST_CASE("A floor that grows by a leak per iteration is growing", "[trend]") {
  std::vector<uint64_t> floors;
  for (uint64_t i = 0; i < 10; ++i) floors.push_back(1 * kGiB + i * 4 * kMiB);
  Trend t = fit(floors, 3);
  CHECK(t.verdict == TrendVerdict::kGrowing);
  CHECK(t.slope_bytes_per_iteration == static_cast<int64_t>(4 * kMiB));
  CHECK(t.growth_bytes == static_cast<int64_t>(36 * kMiB));
  CHECK(t.first_iteration == 3);
  CHECK(t.last_iteration == 12);
  CHECK(t.first_floor == 1 * kGiB);
  CHECK(t.last_floor == 1 * kGiB + 36 * kMiB);
}

TEST_CASE("Growth under the threshold is stable", "[trend]") {
  GIVEN("a few KiB of allocator noise over a small floor") {
    Trend t = fit({50 * kMiB, 50 * kMiB + 4096, 50 * kMiB, 50 * kMiB + 8192});
    CHECK(t.verdict == TrendVerdict::kStable);
    CHECK(t.threshold_bytes == kMiB);
  }
  GIVEN("50 MiB of growth on a 20 GiB floor (under 1%)") {
    Trend t = fit({20 * kGiB, 20 * kGiB + 25 * kMiB, 20 * kGiB + 50 * kMiB});
    CHECK(t.verdict == TrendVerdict::kStable);
    CHECK(t.threshold_bytes > 200 * kMiB);
  }
}

TEST_CASE("A shrinking floor is stable", "[trend]") {
  Trend t = fit({10 * kGiB, 9 * kGiB, 8 * kGiB});
  CHECK(t.verdict == TrendVerdict::kStable);
  CHECK(t.slope_bytes_per_iteration == -static_cast<int64_t>(kGiB));
}

TEST_CASE("Too few windows give no verdict", "[trend]") {
  CHECK(fit({}).verdict == TrendVerdict::kUnknown);
  CHECK(fit({}).first_iteration == 0);
  Trend two = fit({kGiB, 2 * kGiB});
  CHECK(two.verdict == TrendVerdict::kUnknown);
  CHECK(two.slope_bytes_per_iteration == static_cast<int64_t>(kGiB));
}

}  // namespace
}  // namespace memfloor::analysis
