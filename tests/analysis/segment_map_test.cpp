// Tests of SegmentMap: which blocks lie inside the live segments of their device.
#include "analysis/segment_map.h"

#include <catch2/catch.hpp>

namespace memfloor::analysis {
namespace {

constexpr uint64_t kSegment = 0x7f0000000000;
constexpr uint64_t kMiB = uint64_t{1} << 20;

TEST_CASE("a block inside one live segment is covered, one past its end is not", "[segment_map]") {
  SegmentMap map;
  map.open(0, kSegment, 20 * kMiB);
  CHECK(map.covers(0, kSegment, 20 * kMiB));
  CHECK(map.covers(0, kSegment + 4 * kMiB, 512));
  CHECK(map.covers(0, kSegment + 20 * kMiB - 1, 1));
  CHECK(map.covers(0, kSegment + 20 * kMiB - 1, 0));  // size 0: its address is inside
  CHECK_FALSE(map.covers(0, kSegment + 20 * kMiB, 1));
  CHECK_FALSE(map.covers(0, kSegment + 19 * kMiB, 2 * kMiB));  // runs past the end
  CHECK_FALSE(map.covers(0, kSegment - 1, 2));                 // starts before it
  CHECK_FALSE(map.covers(1, kSegment, 512));                   // another device
  CHECK(map.size() == 1);
}

TEST_CASE("a block across adjacent segments is covered; a gap between them is not",
          "[segment_map]") {
  SegmentMap map;
  // Expandable segments: one range mapped in 2 MiB pieces.
  for (uint64_t i = 0; i < 4; ++i) map.open(0, kSegment + i * 2 * kMiB, 2 * kMiB);
  CHECK(map.covers(0, kSegment + kMiB, 6 * kMiB));
  CHECK(map.covers(0, kSegment, 8 * kMiB));
  CHECK_FALSE(map.covers(0, kSegment, 8 * kMiB + 1));
  map.close(0, kSegment + 4 * kMiB);
  CHECK_FALSE(map.covers(0, kSegment + kMiB, 6 * kMiB));
  CHECK(map.covers(0, kSegment + kMiB, 2 * kMiB));
  CHECK(map.covers(0, kSegment + 6 * kMiB, 2 * kMiB));
  CHECK(map.size() == 3);
}

TEST_CASE("closing and reopening a segment, and untrusted sizes", "[segment_map]") {
  SegmentMap map;
  map.open(0, kSegment, kMiB);
  map.close(0, kSegment);
  CHECK_FALSE(map.covers(0, kSegment, 1));
  map.close(0, kSegment);       // not live: ignored
  map.close(5, kSegment);       // a device without segments: ignored
  map.open(0, kSegment, kMiB);  // replaced by a larger one at the same address
  map.open(0, kSegment, 2 * kMiB);
  CHECK(map.covers(0, kSegment + kMiB, kMiB));
  CHECK(map.size() == 1);
  // A segment reaching past the address space ends with it; a block doing so is outside.
  map.open(0, UINT64_MAX - 10, 100);
  CHECK(map.covers(0, UINT64_MAX - 5, 5));
  CHECK_FALSE(map.covers(0, UINT64_MAX - 5, 10));
  CHECK_FALSE(map.covers(0, 0, 1));
}

TEST_CASE("a remembered segment answers only until a segment opens or closes", "[segment_map]") {
  SegmentMap map;
  map.open(0, kSegment, 8 * kMiB);
  map.open(0, kSegment + 8 * kMiB, 8 * kMiB);
  CHECK(map.covers(0, kSegment + kMiB, kMiB));  // remembered for its region
  CHECK(map.covers(0, kSegment + 2 * kMiB, kMiB));
  CHECK_FALSE(map.covers(0, kSegment + 15 * kMiB, 2 * kMiB));  // past both
  CHECK(map.covers(0, kSegment + 7 * kMiB, 2 * kMiB));         // across the two
  CHECK_FALSE(map.covers(1, kSegment + kMiB, kMiB));           // another device
  map.close(0, kSegment);
  CHECK_FALSE(map.covers(0, kSegment + kMiB, kMiB));
  CHECK_FALSE(map.covers(0, kSegment + 2 * kMiB, kMiB));
  map.open(0, kSegment, kMiB);
  CHECK_FALSE(map.covers(0, kSegment + kMiB - 1, 2));
  CHECK(map.covers(0, kSegment + kMiB / 2, 16));
  // A faulty trace's overlapping segments: the one starting last at or before the block decides,
  // whatever was remembered before it.
  map.open(0, kSegment + kMiB / 2, 16);
  CHECK(map.covers(0, kSegment + kMiB / 2, 16));
  CHECK_FALSE(map.covers(0, kSegment + kMiB / 2 + 8, 16));
}

}  // namespace
}  // namespace memfloor::analysis
