// Tests of alike iterations stored once (analysis/iteration_ranges.h): which rows stay whole, what
// a range holds, that the fixed rules (warm-up, last, census) keep rows, and explains merged.
#include "analysis/iteration_ranges.h"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "checked_analysis.h"

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
  // The window a ranged iteration has is its like row's.
  const IterationRow* window = windowOf(r, 30);
  REQUIRE(window != nullptr);
  CHECK(window->index == 24);
  CHECK(window->memory[0].idle.floor == 264 * kMiB);
  CHECK(windowOf(r, 49) == nullptr);
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

}  // namespace
}  // namespace memfloor::analysis::test
