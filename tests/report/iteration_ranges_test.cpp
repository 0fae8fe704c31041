// Tests of alike iterations stored once (report/iteration_ranges.h): which rows stay whole, what
// a range holds, that the fixed rules (warm-up, last, census) keep rows, and explains merged; and
// of iterations along a trend (a leak) stored once, every window expanding back exactly.
#include "report/iteration_ranges.h"

#include <catch2/catch.hpp>
#include <optional>
#include <string>
#include <vector>

#include "tests/analysis/checked_analysis.h"
#include "tests/analysis/invariants.h"

namespace memfloor::analysis::test {
namespace {

constexpr uint64_t kMiB = 1 << 20;
const std::string kAlike = std::string(MEMFLOOR_TESTDATA_DIR) + "/analysis/alike_iterations.txt";

std::vector<uint32_t> rowIndexes(const Report& r) {
  std::vector<uint32_t> out;
  for (const IterationRow& row : r.iterations) out.push_back(row.index);
  return out;
}

TEST_CASE("Alike iterations are one range each side of a step in the floor", "[iteration_ranges]") {
  const Report r = analyzeFile(kAlike);
  CHECK(iterationCount(r) == 48);
  CHECK(rowIndexes(r) == std::vector<uint32_t>{1, 2, 24, 48});
  REQUIRE(r.iteration_ranges.size() == 2);
  const IterationRange& before = r.iteration_ranges[0];
  CHECK(before.first == 3);
  CHECK(before.last == 23);
  CHECK(before.like == 2);
  CHECK(before.start_ns == 300'000);
  CHECK(before.end_ns == 2'400'000);  // the next iteration's start
  REQUIRE(before.memory.size() == 1);
  // Activations of 64 + (i * 7) % 5 MiB over 296 MiB: weights, the loader's and the cache's buffer.
  CHECK(before.memory[0].peak.min == 360 * kMiB);
  CHECK(before.memory[0].peak.max == 364 * kMiB);
  CHECK(before.memory[0].peak.mean > 361 * kMiB);
  CHECK(before.memory[0].peak.mean < 363 * kMiB);
  CHECK(before.memory[0].floor == Spread{288 * kMiB, 288 * kMiB, 288 * kMiB});  // cache swapped
  CHECK(before.memory[0].allocated.count == Spread{2, 2, 2});
  CHECK(before.duration_ns == Spread{1000, 1000, 1000});
  const IterationRange& after = r.iteration_ranges[1];
  CHECK(after.first == 25);
  CHECK(after.last == 47);
  CHECK(after.like == 24);
  CHECK(after.memory[0].floor.min == 256 * kMiB);
  CHECK(after.step.empty());  // alike
  // The window a ranged iteration has is its like row's.
  const std::optional<IterationRow> window = windowOf(r, 30);
  REQUIRE(window);
  CHECK(window->index == 24);
  CHECK(window->memory[0].idle.floor == 264 * kMiB);
  CHECK_FALSE(windowOf(r, 49));
}

TEST_CASE("Without compaction every iteration is a row", "[iteration_ranges]") {
  AnalysisOptions options;
  options.compact_iterations = false;
  const Report r = analyzeFile(kAlike, options);
  CHECK(r.iterations.size() == 48);
  CHECK(r.iteration_ranges.empty());
  CHECK(iterationCount(r) == 48);
}

TEST_CASE("Warm-up iterations and the first one after stay whole", "[iteration_ranges]") {
  AnalysisOptions options;
  options.warmup_iterations = 5;
  const Report r = analyzeFile(kAlike, options);
  CHECK(rowIndexes(r) == std::vector<uint32_t>{1, 2, 3, 4, 5, 6, 24, 48});
  REQUIRE(r.iteration_ranges.size() == 2);
  CHECK(r.iteration_ranges[0].first == 7);
  CHECK(r.iteration_ranges[0].like == 6);
}

TEST_CASE("Alike iterations fewer than the minimum stay rows", "[iteration_ranges]") {
  TraceBuilder t;
  t.alloc(1, 0x1000, 100, {0, MemoryKind::kDevice, 1});
  for (uint64_t i = 0; i < kMinRangeIterations + 1; ++i) {
    const uint64_t at = 100 + i * 100;
    t.push(at, "iteration").alloc(at + 10, 0x2000, 50).free(at + 20, 0x2000).pop(at + 30);
  }
  const Report r = analyze(t);
  // Rows 1 and the last are kept, so one fewer than the minimum lie between.
  CHECK(r.iterations.size() == kMinRangeIterations + 1);
  CHECK(r.iteration_ranges.empty());
}

TEST_CASE("A finding's bytes in consecutive windows are one explains entry", "[iteration_ranges]") {
  AnalysisOptions options;
  options.links.push_back({{"Cache::keep"}, ""});
  const Report r = analyzeFile(kAlike, options);
  REQUIRE(r.explained.size() == 1);
  CHECK(r.explained[0].iteration == 1);
  CHECK(r.explained[0].last_iteration == 48);  // the final window keeps the last buffer
  CHECK(r.explained[0].retained == Tally{8 * kMiB, 1});
  // A range repeats its like row's explained bytes.
  CHECK(rowIndexes(r) == std::vector<uint32_t>{1, 2, 24, 48});
}

// Weights, then `n` iterations that each make and free an activation and leak `leak` bytes (one
// allocation), iteration `off` one byte more.
TraceBuilder leakingLoop(uint32_t n, uint64_t leak, uint32_t off = 0) {
  TraceBuilder t;
  const trace::StackId weights = t.stack({{"Model::Model", "model.cpp", 10}});
  const trace::StackId layer = t.stack({{"Layer::forward", "layer.cpp", 40}});
  const trace::StackId history = t.stack({{"History::append", "history.cpp", 7}});
  t.alloc(10, 0x10000000, 64 * kMiB, {.stack = weights});
  for (uint32_t i = 1; i <= n; ++i) {
    const uint64_t at = 1000 * uint64_t{i};
    t.push(at, "iteration " + std::to_string(i));
    t.alloc(at + 100, 0x20000000, 32 * kMiB, {.stack = layer});
    t.alloc(at + 200, 0x40000000 + uint64_t{i} * 0x100000, leak + (i == off ? 1 : 0),
            {.stack = history});
    t.free(at + 300, 0x20000000);
    t.pop(at + 400);
  }
  return t;
}

AnalysisOptions whole() {
  AnalysisOptions options;
  options.compact_iterations = false;
  return options;
}

TEST_CASE("Iterations along a leak are one trend range that expands exactly",
          "[iteration_ranges]") {
  const TraceBuilder t = leakingLoop(40, kMiB);
  const Report r = analyze(t);
  // 1 starts the trend; 39 has the steady floor, 40 the largest peak and the final window.
  CHECK(rowIndexes(r) == std::vector<uint32_t>{1, 39, 40});
  REQUIRE(r.iteration_ranges.size() == 1);
  const IterationRange& range = r.iteration_ranges[0];
  CHECK(range.first == 2);
  CHECK(range.last == 38);
  CHECK(range.like == 1);
  REQUIRE(range.step.memory.size() == 1);
  CHECK(range.step.memory[0].floor == int64_t{kMiB});
  CHECK(range.step.memory[0].retained.leak == TallyStep{int64_t{kMiB}, 1});
  CHECK(range.step.memory[0].retained.persistent == TallyStep{});
  // The sites, counted bytes first: the leak's list, which grows by a MiB and an allocation each
  // iteration, then the weights.
  REQUIRE(range.step.top_sites.size() == 2);
  CHECK(range.step.top_sites[0].leak == TallyStep{int64_t{kMiB}, 1});
  CHECK(range.step.top_sites[1] == RetainedStep{});
  // Peaks move with the leak: a spread, as in alike ranges.
  CHECK(range.memory[0].peak.max - range.memory[0].peak.min == 36 * kMiB);
  checkWindowsExpand(r, analyze(t, whole()));
  CHECK(stepFault(range, *windowOf(r, 1)).empty());
}

TEST_CASE("A window one byte off the line is kept whole and starts the next trend",
          "[iteration_ranges]") {
  const TraceBuilder t = leakingLoop(60, kMiB, 30);
  const Report r = analyze(t);
  // 30 leaks a byte more: off the line from 1, so it is kept whole; from it, 31 on step a MiB
  // again, a second trend.
  CHECK(rowIndexes(r) == std::vector<uint32_t>{1, 30, 59, 60});
  REQUIRE(r.iteration_ranges.size() == 2);
  CHECK(r.iteration_ranges[0].first == 2);
  CHECK(r.iteration_ranges[0].last == 29);
  CHECK(r.iteration_ranges[1].first == 31);
  CHECK(r.iteration_ranges[1].like == 30);
  CHECK(r.iteration_ranges[1].step.memory.at(0).floor == int64_t{kMiB});
  checkWindowsExpand(r, analyze(t, whole()));
}

TEST_CASE("A floor falling evenly is a trend range of negative steps", "[iteration_ranges]") {
  // 40 buffers of 1 MiB made before the first iteration, iteration i frees the i-th.
  TraceBuilder t;
  const trace::StackId weights = t.stack({{"Model::Model", "model.cpp", 10}});
  const trace::StackId buffers = t.stack({{"Cache::fill", "cache.cpp", 3}});
  t.alloc(10, 0x10000000, 64 * kMiB, {.stack = weights});
  for (uint64_t b = 0; b < 40; ++b)
    t.alloc(20 + b, 0x40000000 + b * kMiB, kMiB, {.stack = buffers});
  for (uint64_t i = 1; i <= 40; ++i) {
    t.push(1000 * i, "iteration " + std::to_string(i));
    t.free(1000 * i + 100, 0x40000000 + (i - 1) * kMiB);
    t.pop(1000 * i + 200);
  }
  const Report r = analyze(t);
  // 1: the steady (largest) floor and peak; 40: the last, whose window lists no buffer.
  CHECK(rowIndexes(r) == std::vector<uint32_t>{1, 40});
  REQUIRE(r.iteration_ranges.size() == 1);
  const WindowStep& step = r.iteration_ranges[0].step;
  REQUIRE(step.memory.size() == 1);
  CHECK(step.memory[0].floor == -int64_t{kMiB});
  CHECK(step.memory[0].retained.persistent == TallyStep{-int64_t{kMiB}, -1});
  checkWindowsExpand(r, analyze(t, whole()));
}

TEST_CASE("A trend shorter than the minimum stays rows", "[iteration_ranges]") {
  const Report r = analyze(leakingLoop(kMinRangeIterations + 2, kMiB));
  // 1 and the last two are kept, one fewer than the minimum lie between.
  CHECK(r.iterations.size() == kMinRangeIterations + 2);
  CHECK(r.iteration_ranges.empty());
}

TEST_CASE("A step that leaves 0..2^63-1 within its range is a fault naming the number",
          "[iteration_ranges]") {
  const Report r = analyze(leakingLoop(40, kMiB));
  IterationRange range = r.iteration_ranges.at(0);
  const IterationRow like = *windowOf(r, range.like);
  REQUIRE(stepFault(range, like).empty());
  range.step.memory[0].retained.leak.count = -1;  // 1 leaked at iteration 1: -36 at 38
  CHECK(stepFault(range, like) ==
        "memory[0].retained.leak.count: 1 from iteration 1 by -1 per iteration is negative at "
        "iteration 38");
  range.step.memory[0].retained.leak.count = 1;
  range.step.top_sites[1].persistent.bytes = int64_t{1} << 62;  // the weights' 64 MiB + 37 x 2^62
  CHECK(stepFault(range, like).starts_with("top_sites[1].retained.persistent.bytes: "));
  CHECK(stepFault(range, like).ends_with("is past 2^63-1 at iteration 38"));
  range.step.top_sites.pop_back();
  CHECK(stepFault(range, like) == "top_sites: 1 entries, iteration 1 has 2");
}

}  // namespace
}  // namespace memfloor::analysis::test
