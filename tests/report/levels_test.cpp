// Tests of a caching allocator's two levels in the replay and the report: blocks get a timeline
// of their own (allocated) beside their segments' (reserved), the headline floor is the
// allocated one, and blocks outside the live segments of their device are counted.
#include "report/levels.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "tests/analysis/checked_analysis.h"
#include "tests/analysis/invariants.h"
#include "tests/analysis/scenarios.h"

namespace memfloor::analysis::test {
namespace {

constexpr uint64_t kSegment = 0x7f0000000000;
constexpr uint64_t kSmallSegment = kSegment + 20 * kMiB;
const At kBlockAt{.kind = MemoryKind::kBlock};

// PyTorch's default allocator: two segments reserved once and never freed, 8 MiB of weights'
// blocks before the first iteration, then per iteration 6 MiB of blocks freed inside it and one
// 1 MiB block kept until the next iteration frees it. Iteration i runs over [1000 i + 100,
// 1000 i + 900].
TraceBuilder cachingAllocator(uint32_t iterations) {
  TraceBuilder t;
  const trace::StackId kept = t.stack({{"Model.forward", "model.py", 40}});
  t.alloc(10, kSegment, 20 * kMiB).alloc(20, kSmallSegment, 2 * kMiB);
  t.alloc(30, kSegment, 8 * kMiB, kBlockAt);
  for (uint64_t i = 0; i < iterations; ++i) {
    const uint64_t base = 1000 * (i + 1);
    t.push(base + 100, "iteration " + std::to_string(i + 1));
    if (i > 0) t.free(base + 110, kSegment + (16 + (i - 1) % 2) * kMiB, kBlockAt);
    t.alloc(base + 200, kSegment + 8 * kMiB, 4 * kMiB, kBlockAt);
    t.alloc(base + 210, kSmallSegment, 512, kBlockAt);
    t.alloc(base + 300, kSegment + (16 + i % 2) * kMiB, kMiB,
            {.kind = MemoryKind::kBlock, .stack = kept});
    t.alloc(base + 400, kSegment + 12 * kMiB, 2 * kMiB, kBlockAt);
    t.free(base + 450, kSmallSegment, kBlockAt);
    t.free(base + 500, kSegment + 8 * kMiB, kBlockAt);
    t.free(base + 600, kSegment + 12 * kMiB, kBlockAt);
    t.pop(base + 900);
  }
  return t;
}

TEST_CASE("Blocks have their own floors: reserved is the segments, allocated what is kept",
          "[memory_levels]") {
  const Report r = analyze(cachingAllocator(4));
  REQUIRE(r.memory.size() == 2);
  CHECK(r.memory[0].key == MemoryKey{0, MemoryKind::kDevice});
  CHECK(r.memory[1].key == MemoryKey{0, MemoryKind::kBlock});
  CHECK(r.memory[0].allocated.count == 2);
  CHECK(r.memory[0].freed.count == 0);
  REQUIRE(r.iterations.size() == 4);
  for (const IterationRow& row : r.iterations) {
    INFO("window after iteration " << row.index);
    const IterationMemory& reserved = memoryOf(row, 0, MemoryKind::kDevice);
    const IterationMemory& allocated = memoryOf(row, 0, MemoryKind::kBlock);
    CHECK(reserved.idle.floor == 22 * kMiB);
    CHECK(reserved.idle.retained.persistent.bytes == 22 * kMiB);
    CHECK(allocated.idle.floor == 9 * kMiB);
    CHECK(allocated.idle.retained.persistent.bytes == 8 * kMiB);
    CHECK(allocated.idle.retained.inter_iteration.bytes == kMiB);
    CHECK(allocated.peak == 15 * kMiB + 512);
  }
  CHECK(r.anomalies.blocks_outside_segments == 0);

  CHECK(hasBlocks(r));
  CHECK(hasBlocks(r, 0));
  CHECK_FALSE(hasBlocks(r, 1));
  CHECK(headlineKey(r, 0) == MemoryKey{0, MemoryKind::kBlock});
  CHECK(headlineKey(r, 1) == MemoryKey{1, MemoryKind::kDevice});
  REQUIRE(steadyFloorOf(r, {0, MemoryKind::kDevice}) != nullptr);
  CHECK(steadyFloorOf(r, {0, MemoryKind::kDevice})->idle_floor == 22 * kMiB);
  REQUIRE(steadyFloorOf(r, {0, MemoryKind::kBlock}) != nullptr);
  CHECK(steadyFloorOf(r, {0, MemoryKind::kBlock})->idle_floor == 9 * kMiB);
  CHECK(steadyFloorOf(r, {0, MemoryKind::kPinned}) == nullptr);

  // The run's headline: the allocated floor, not the larger reserved one.
  const MergedReport m = merge({r});
  REQUIRE(m.worst);
  CHECK(m.worst->key == MemoryKey{0, MemoryKind::kBlock});
  CHECK(m.worst->idle_floor == 9 * kMiB);
}

TEST_CASE("A device without blocks is headed by its device memory", "[memory_levels]") {
  // Device 0 has blocks (reserved 22 MiB, allocated 9 MiB); device 1 plain device memory, 12 MiB
  // kept: the worst headline is device 1's, although device 0 reserved more.
  TraceBuilder t = cachingAllocator(3);
  t.alloc(50, 0x1000, 12 * kMiB, {.device = 1});
  const Report r = analyze(t);
  CHECK(headlineKey(r, 1) == MemoryKey{1, MemoryKind::kDevice});
  const MergedReport m = merge({r});
  REQUIRE(m.worst);
  CHECK(m.worst->key == MemoryKey{1, MemoryKind::kDevice});
  CHECK(m.worst->idle_floor == 12 * kMiB);

  const Report plain = analyze(trainingLoop().trace);
  CHECK_FALSE(hasBlocks(plain));
  CHECK(headlineKey(plain, 0) == MemoryKey{0, MemoryKind::kDevice});
}

TEST_CASE("Blocks outside every live segment of their device are counted", "[memory_levels]") {
  TraceBuilder t;
  t.alloc(5, kSegment, 4 * kMiB);                   // before the first block: found in the live set
  t.alloc(10, kSegment + kMiB, 512, kBlockAt);      // inside
  t.alloc(20, kSegment + 4 * kMiB, 512, kBlockAt);  // just past the segment: outside (1)
  t.alloc(30, kSegment + 3 * kMiB, 2 * kMiB, kBlockAt);  // runs past its end: outside (2)
  t.alloc(40, kSegment + 4 * kMiB, 4 * kMiB);            // an adjacent piece (expandable segments)
  t.alloc(50, kSegment + 2 * kMiB, 4 * kMiB, kBlockAt);  // across both pieces: inside
  t.alloc(60, kSegment, 64, {.device = 1, .kind = MemoryKind::kBlock});  // device 1: outside (3)
  t.free(70, kSegment + 4 * kMiB);
  t.alloc(80, kSegment + 5 * kMiB, 64, kBlockAt);        // its piece was freed: outside (4)
  t.alloc(90, kSegment + 4 * kMiB, 2 * kMiB);            // mapped again
  t.alloc(95, kSegment + 4 * kMiB, kMiB);                // replaced at its address (a lost free)
  t.alloc(100, kSegment + 5 * kMiB + 64, 64, kBlockAt);  // past the smaller one: outside (5)
  t.alloc(110, kSegment + 4 * kMiB + 64, 64, kBlockAt);  // inside the smaller one
  const Report r = analyze(t);
  CHECK(r.anomalies.blocks_outside_segments == 5);
  CHECK(r.anomalies.double_allocations.count == 1);
}

TEST_CASE("Blocks with no segment at all: allocated above reserved is reported as it is",
          "[memory_levels]") {
  // The two kinds come from two sources: nothing makes a device's blocks fit its segments, and
  // the report does not pretend they do.
  TraceBuilder t;
  t.push(100, "iteration 1").alloc(200, kSegment, 8 * kMiB, kBlockAt).pop(300);
  t.push(400, "iteration 2").pop(500);
  const Report r = analyze(t);
  REQUIRE(r.memory.size() == 1);
  CHECK(r.memory[0].key == MemoryKey{0, MemoryKind::kBlock});
  CHECK(memoryOf(r.iterations[0], 0, MemoryKind::kBlock).idle.floor == 8 * kMiB);
  CHECK(r.anomalies.blocks_outside_segments == 1);
  REQUIRE(merge({r}).worst);
  CHECK(merge({r}).worst->key == MemoryKey{0, MemoryKind::kBlock});
}

TEST_CASE(
    "A caching allocator warming up: its reserved level grows, cached, and the verdict follows "
    "the allocated level",
    "[memory_levels]") {
  const Report r = analyze(cacheWarmUp().trace);
  const MemoryKey reserved{0, MemoryKind::kDevice};
  const MemoryKey allocated{0, MemoryKind::kBlock};
  CHECK(isReservedLevel(r, reserved));
  CHECK_FALSE(isReservedLevel(r, allocated));
  CHECK_FALSE(isReservedLevel(r, {1, MemoryKind::kDevice}));
  REQUIRE(r.trends.size() == 2);
  // The segments grow by 256 MiB in iterations 1-3: reported as it is...
  CHECK(r.trends[0].key == reserved);
  CHECK(r.trends[0].verdict == TrendVerdict::kGrowing);
  CHECK(r.trends[1].key == allocated);
  CHECK(r.trends[1].verdict == TrendVerdict::kStable);
  // ...and left out of the verdict: the program keeps the same blocks in every window.
  CHECK(r.verdict == TrendVerdict::kStable);

  REQUIRE(r.iterations.size() == 6);
  for (const IterationRow& row : r.iterations) {
    INFO("window after iteration " << row.index);
    const uint64_t grown = std::min<uint64_t>(row.index, 3) * 256 * kMiB;
    const RetainedTally& segments = memoryOf(row, 0, MemoryKind::kDevice).idle.retained;
    CHECK(segments.leak == Tally{});
    CHECK(segments.inter_iteration == Tally{});
    CHECK(segments.persistent == Tally{kWarmUpFirstSegment, 1});
    CHECK(segments.cached.bytes == grown);
    CHECK(segments.dominant() == RetentionClass::kCached);
    CHECK(memoryOf(row, 0, MemoryKind::kBlock).idle.retained ==
          RetainedTally{{}, {}, {kWarmUpWeights, 1}, {}});
  }
  // At a peak, what earlier iterations reserved is cached too.
  const PeakTally& at_peak =
      memoryOf(r.iterations[3], 0, MemoryKind::kDevice).peak_composition->live;
  CHECK(at_peak.cached == Tally{3 * 256 * kMiB, 3});
  CHECK(at_peak.leak == Tally{});
  CHECK(at_peak.persistent == Tally{kWarmUpFirstSegment, 1});
  REQUIRE_FALSE(memoryOf(r.iterations[3], 0, MemoryKind::kDevice).peak_composition->sites.empty());
  CHECK(memoryOf(r.iterations[3], 0, MemoryKind::kDevice)
            .peak_composition->sites[0]
            .live.dominant() == PeakClass::kCached);
}

TEST_CASE("The same segments without blocks are a leak, and the run grows", "[memory_levels]") {
  // No allocator blocks: nothing says the growth is a cache. A C++ program's classes and verdict.
  const Report r = analyze(cacheWarmUp({.blocks = false}).trace);
  CHECK_FALSE(isReservedLevel(r, {0, MemoryKind::kDevice}));
  REQUIRE(r.trends.size() == 1);
  CHECK(r.trends[0].verdict == TrendVerdict::kGrowing);
  CHECK(r.verdict == TrendVerdict::kGrowing);
  const RetainedTally& segments = memoryOf(r.iterations[3], 0, MemoryKind::kDevice).idle.retained;
  CHECK(segments.leak == Tally{3 * 256 * kMiB, 3});
  CHECK(segments.cached == Tally{});
}

TEST_CASE("A leak at the allocated level grows the run, beside a warming cache",
          "[memory_levels]") {
  const WarmUp w = cacheWarmUp({.leak = 4 * kMiB});
  const Report r = analyze(w.trace);
  REQUIRE(r.trends.size() == 2);
  CHECK(r.trends[1].verdict == TrendVerdict::kGrowing);
  CHECK(r.verdict == TrendVerdict::kGrowing);
  const IterationRow& row = r.iterations[4];
  CHECK(memoryOf(row, 0, MemoryKind::kBlock).idle.retained.leak == Tally{5 * 4 * kMiB, 5});
  CHECK(memoryOf(row, 0, MemoryKind::kDevice).idle.retained.leak == Tally{});
}

TEST_CASE("The allocated level's sites are ranked apart, first: segments never crowd them out",
          "[memory_levels]") {
  // A cache that grows by 256 MiB in every iteration, from three sites of the allocator in turn,
  // and a 4 MiB-per-iteration list: with two sites listed in one ranking, the list would not be
  // among them.
  const WarmUp w = cacheWarmUp({.growing = 6, .segment_sites = 3, .leak = 4 * kMiB});
  const Report r = analyze(w.trace, {.top_sites = 2});
  const std::vector<RetainedSite>& sites = r.iterations[4].top_sites;
  REQUIRE(sites.size() == 4);
  CHECK(sites[0].key == MemoryKey{0, MemoryKind::kBlock});
  CHECK(sites[0].stack == w.history);
  CHECK(sites[0].where == "train.py:30 in train_step");
  CHECK(sites[0].retained.dominant() == RetentionClass::kLeak);
  CHECK(sites[1].stack == w.weights);  // persistent: after the counted bytes
  for (size_t i = 2; i < sites.size(); ++i) {
    INFO("site " << i);
    CHECK(sites[i].key == MemoryKey{0, MemoryKind::kDevice});
    CHECK(sites[i].retained.dominant() == RetentionClass::kCached);
  }

  // Without blocks, one ranking of at most two sites, as always: 512 MiB from the iterations each
  // (the third site has 256), then the first one's persistent segment decides.
  const WarmUp plain = cacheWarmUp({.growing = 6, .segment_sites = 3, .blocks = false});
  const Report c = analyze(plain.trace, {.top_sites = 2});
  const std::vector<RetainedSite>& listed = c.iterations[4].top_sites;
  REQUIRE(listed.size() == 2);
  CHECK(listed[0].stack == plain.segment_sites[0]);
  CHECK(listed[1].stack == plain.segment_sites[1]);
}

}  // namespace
}  // namespace memfloor::analysis::test
