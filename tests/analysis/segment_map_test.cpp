// Tests of SegmentMap: which blocks lie inside the live segments of their device.
#include "analysis/segment_map.h"

#include <catch2/catch.hpp>
#include <random>
#include <vector>

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

TEST_CASE("a segment opened elsewhere keeps what the cache remembers", "[segment_map]") {
  SegmentMap map;
  map.open(0, kSegment, 64 * kMiB);
  map.open(0, kSegment + 64 * kMiB, 64 * kMiB);
  CHECK(map.covers(0, kSegment + kMiB, kMiB));
  CHECK(map.covers(0, kSegment + 63 * kMiB, 2 * kMiB));  // across the two: remembered too
  CHECK(map.misses() == 2);
  // Segments reserved past these, as an allocator grows: both ranges still answer.
  for (uint64_t i = 2; i <= 8; ++i) map.open(0, kSegment + i * 64 * kMiB, 64 * kMiB);
  map.open(1, kSegment, 64 * kMiB);  // another device's, at the same address
  CHECK(map.covers(0, kSegment + 2 * kMiB, kMiB));
  CHECK(map.covers(0, kSegment + 62 * kMiB, 3 * kMiB));
  CHECK(map.misses() == 2);
  // A segment opening inside a live one, or any closing, empties the cache.
  map.open(0, kSegment + 70 * kMiB, kMiB);
  CHECK(map.covers(0, kSegment + 2 * kMiB, kMiB));
  CHECK(map.misses() == 3);
  map.close(0, kSegment + 8 * 64 * kMiB);
  CHECK(map.covers(0, kSegment + 2 * kMiB, kMiB));
  CHECK(map.misses() == 4);
}

// The cache must never change an answer: every check against a map that has none yet (a fresh
// one, given the same segments), over random opens, closes and checks. Most segments lie side by
// side, 8 MiB each; one in five has another size, so that some overlap or are replaced (a faulty
// trace's). A block not covered is never remembered: a hit is a covered block's.
TEST_CASE("the cache answers as the segments do, over random changes", "[segment_map]") {
  struct Change {
    bool open;
    uint32_t device;
    uint64_t address, size;
  };
  std::mt19937_64 rng(7);
  SegmentMap map;
  std::vector<Change> changes;
  uint64_t checks = 0, covers = 0;
  for (int step = 0; step < 3000; ++step) {
    const uint32_t device = rng() % 8 == 0 ? 1 : 0;
    const uint64_t address = kSegment + (rng() % 16) * 8 * kMiB;
    const uint64_t r = rng() % 40;
    if (r < 1) {
      const uint64_t size = rng() % 5 == 0 ? (1 + rng() % 24) * kMiB : 8 * kMiB;
      changes.push_back({true, device, address, size});
      map.open(device, address, size);
    } else if (r < 2) {
      changes.push_back({false, device, address, 0});
      map.close(device, address);
    } else {
      const uint64_t at = address + rng() % (8 * kMiB), size = rng() % (2 * kMiB);
      SegmentMap fresh;
      for (const Change& c : changes) {
        c.open ? fresh.open(c.device, c.address, c.size) : fresh.close(c.device, c.address);
      }
      INFO("step " << step);
      ++checks;
      const bool covered = fresh.covers(device, at, size);
      covers += covered ? 1 : 0;
      REQUIRE(map.covers(device, at, size) == covered);
    }
  }
  INFO(map.misses() << " misses in " << checks << " checks, " << covers << " covered");
  CHECK(checks - map.misses() > covers / 2);  // the cache answered most covered blocks
}

}  // namespace
}  // namespace memfloor::analysis
