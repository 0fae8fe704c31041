// Tests of LiveSet: pairing frees with allocations, and the anomalies it counts.
#include "analysis/live_set.h"

#include <catch2/catch.hpp>

#include "invariants.h"

namespace memfloor::analysis {
namespace {

LiveAlloc allocAt(uint16_t slot, uint64_t address, uint64_t size, uint32_t site = 0) {
  LiveAlloc a;
  a.slot = slot;
  a.address = address;
  a.size = size;
  a.site = site;
  return a;
}

TEST_CASE("LiveSet pairs a free with the live allocation at its address", "[live_set]") {
  LiveSet live;
  LiveAlloc replaced, closed;
  GIVEN("an allocation, its free, and a new allocation at the same address") {
    CHECK_FALSE(live.open(allocAt(0, 0x1000, 256, 1), replaced));
    REQUIRE(live.close(0, 0x1000, 256, closed));
    CHECK(closed.size == 256);
    CHECK(closed.site == 1);
    CHECK_FALSE(live.open(allocAt(0, 0x1000, 64, 2), replaced));
    THEN("the second free closes the second allocation, with its own size") {
      REQUIRE(live.close(0, 0x1000, 64, closed));
      CHECK(closed.size == 64);
      CHECK(closed.site == 2);
      CHECK(live.size() == 0);
      CHECK(live.stats().unmatched_frees.count == 0);
      CHECK(live.stats().double_allocations.count == 0);
    }
  }
}

TEST_CASE("LiveSet counts a free with no live allocation", "[live_set]") {
  LiveSet live;
  LiveAlloc closed;
  CHECK_FALSE(live.close(0, 0x2000, 128, closed));
  live.unmatchedFree(32);
  CHECK(live.stats().unmatched_frees == Tally{160, 2});
  CHECK(live.size() == 0);
}

TEST_CASE("LiveSet closes the older of two allocations at one address", "[live_set]") {
  LiveSet live;
  LiveAlloc replaced, closed;
  live.open(allocAt(0, 0x1000, 100, 1), replaced);
  REQUIRE(live.open(allocAt(0, 0x1000, 300, 2), replaced));
  CHECK(replaced.size == 100);
  CHECK(replaced.site == 1);
  CHECK(live.stats().double_allocations == Tally{100, 1});
  REQUIRE(live.close(0, 0x1000, 300, closed));
  CHECK(closed.site == 2);
}

TEST_CASE("LiveSet frees with the allocation's size and counts a mismatch", "[live_set]") {
  LiveSet live;
  LiveAlloc replaced, closed;
  live.open(allocAt(0, 0x1000, 100), replaced);
  live.open(allocAt(0, 0x2000, 100), replaced);
  REQUIRE(live.close(0, 0x1000, 90, closed));
  CHECK(closed.size == 100);
  CHECK(live.stats().size_mismatches == 1);
  REQUIRE(live.close(0, 0x2000, 0, closed));  // 0: size not recorded, no mismatch
  CHECK(live.stats().size_mismatches == 1);
}

TEST_CASE("LiveSet keeps the same address on different slots apart", "[live_set]") {
  LiveSet live;
  LiveAlloc replaced, closed;
  live.open(allocAt(0, 0x1000, 10), replaced);
  CHECK_FALSE(live.open(allocAt(1, 0x1000, 20), replaced));
  REQUIRE(live.close(1, 0x1000, 20, closed));
  CHECK(closed.size == 20);
  REQUIRE(live.find(0, 0x1000) != nullptr);
  CHECK(live.find(0, 0x1000)->size == 10);
}

}  // namespace
}  // namespace memfloor::analysis
