// Tests of trace/torch_block_sizes: the caching allocator's block sizes from the requests, the
// segments and the blocks in use.
#include "trace/torch_block_sizes.h"

#include <catch2/catch.hpp>

namespace memfloor::trace {
namespace {

constexpr uint64_t kMiB = uint64_t{1} << 20;
constexpr uint64_t kBase = 0x7f0000000000;

TEST_CASE("a request is rounded up to a multiple of 512 bytes", "[torch_block_sizes]") {
  CHECK(TorchBlockSizes::rounded(0) == 512);
  CHECK(TorchBlockSizes::rounded(1) == 512);
  CHECK(TorchBlockSizes::rounded(512) == 512);
  CHECK(TorchBlockSizes::rounded(513) == 1024);
  CHECK(TorchBlockSizes::rounded(UINT64_MAX) == UINT64_MAX);  // no wrap: the size asked
}

TEST_CASE("the remainder of a free block is split off as the allocator splits it",
          "[torch_block_sizes]") {
  TorchBlockSizes sizes({});
  SECTION("small pool: at least 512 bytes left") {
    sizes.addSegment(kBase, 2 * kMiB, false);
    CHECK(sizes.allocate(kBase, 1000) == 1024);
    CHECK(sizes.allocate(kBase + 1024, 2 * kMiB - 1024 - 100) == 2 * kMiB - 1024);
  }
  SECTION("large pool: 1 MiB or less left stays with the block") {
    sizes.addSegment(kBase, 20 * kMiB, false);
    CHECK(sizes.allocate(kBase, 19 * kMiB + kMiB / 2) == 20 * kMiB);
    CHECK(sizes.release(kBase) == 20 * kMiB);
    CHECK(sizes.allocate(kBase, 10 * kMiB) == 10 * kMiB);  // 10 MiB left: split
  }
  SECTION("the free block ends at the next block in use") {
    sizes.addSegment(kBase, 20 * kMiB, false);
    sizes.addBlock(kBase + 12 * kMiB, 8 * kMiB);
    CHECK(sizes.allocate(kBase, 11 * kMiB + kMiB / 2) == 12 * kMiB);
    CHECK(sizes.sizeAt(kBase) == 12 * kMiB);
  }
  SECTION("expandable segments always split") {
    sizes.addSegment(kBase, 20 * kMiB, true);
    CHECK(sizes.allocate(kBase, 19 * kMiB + kMiB / 2) == 19 * kMiB + kMiB / 2);
  }
  SECTION("an address in no known segment takes the rounded size") {
    CHECK(sizes.allocate(kBase, 19 * kMiB + 1) == 19 * kMiB + 512);
  }
  SECTION("a free of no block in use is 0") { CHECK(sizes.release(kBase) == 0); }
}

TEST_CASE("blocks of max_split_size or more are never split", "[torch_block_sizes]") {
  SnapshotSettings settings;
  settings.max_split_size = 8 * kMiB;
  TorchBlockSizes sizes(settings);
  sizes.addSegment(kBase, 20 * kMiB, false);
  CHECK(sizes.allocate(kBase, 10 * kMiB) == 20 * kMiB);
}

}  // namespace
}  // namespace memfloor::trace
