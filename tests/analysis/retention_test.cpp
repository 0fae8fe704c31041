// Tests of Retention through whole replays: what each idle window retains, by site and class.
#include "analysis/retention.h"

#include <catch2/catch.hpp>

#include "checked_analysis.h"
#include "invariants.h"
#include "scenarios.h"

namespace memfloor::analysis::test {
namespace {

const RetainedSite* siteOf(const IterationRow& row, trace::StackId stack) {
  for (const RetainedSite& s : row.top_sites) {
    if (s.stack == stack) return &s;
  }
  return nullptr;
}

TEST_CASE("Seed 000: a buffer kept until the next forward is inter-iteration", "[retention]") {
  GIVEN("weights, transient activations and one buffer freed in the next iteration") {
    Loop loop = trainingLoop();
    Report r = analyze(loop.trace);
    REQUIRE(r.iterations.size() == 5);
    THEN("every idle window holds the weights and one buffer") {
      for (const IterationRow& row : r.iterations) {
        INFO("iteration " << row.index);
        const IterationMemory& m = memoryOf(row);
        CHECK(m.idle.floor == 72 * kMiB);
        CHECK(m.peak == 104 * kMiB);
        CHECK(m.idle.retained.persistent == Tally{64 * kMiB, 1});
        CHECK(m.idle.retained.inter_iteration == Tally{8 * kMiB, 1});
        CHECK(m.idle.retained.leak == Tally{});
      }
    }
    THEN("the buffer's site leads the list, the weights follow, activations are absent") {
      for (const IterationRow& row : r.iterations) {
        REQUIRE(row.top_sites.size() == 2);
        CHECK(row.top_sites[0].stack == loop.retained_site);
        CHECK(row.top_sites[0].where == "layer.cpp:2305 in Layer::forwardPostMlp");
        CHECK(row.top_sites[0].retained.dominant() == RetentionClass::kInterIteration);
        CHECK(row.top_sites[1].stack == loop.weights_site);
        CHECK(row.top_sites[1].retained.dominant() == RetentionClass::kPersistent);
        CHECK(siteOf(row, loop.activation_site) == nullptr);
      }
    }
    THEN("the trend is stable and the referenced stacks are resolved") {
      CHECK(r.verdict == TrendVerdict::kStable);
      REQUIRE(r.stacks.size() == 2);
      CHECK(r.stacks[0].id == loop.weights_site);
      CHECK(r.stacks[0].frames.size() == 2);
    }
  }
}

TEST_CASE("The last buffer, cut off by the end of the trace, stays inter-iteration",
          "[retention]") {
  Loop loop = trainingLoop();
  Report r = analyze(loop.trace);
  const IterationRow& last = r.iterations.back();
  CHECK(last.idle_final);
  CHECK(memoryOf(last).idle.retained.inter_iteration == Tally{8 * kMiB, 1});
  CHECK(memoryOf(last).idle.retained.persistent == Tally{64 * kMiB, 1});
}

TEST_CASE("A buffer leaked every iteration is a leak and the floor grows", "[retention]") {
  Loop loop = trainingLoop({.iterations = 6, .retained = 0, .leak = 2 * kMiB});
  Report r = analyze(loop.trace);
  for (const IterationRow& row : r.iterations) {
    INFO("iteration " << row.index);
    const IterationMemory& m = memoryOf(row);
    CHECK(m.idle.floor == 64 * kMiB + row.index * 2 * kMiB);
    CHECK(m.idle.retained.leak == Tally{row.index * 2 * kMiB, row.index});
    CHECK(m.idle.retained.inter_iteration == Tally{});
    REQUIRE(!row.top_sites.empty());
    CHECK(row.top_sites[0].stack == loop.leak_site);
    CHECK(row.top_sites[0].retained.dominant() == RetentionClass::kLeak);
  }
  CHECK(r.verdict == TrendVerdict::kGrowing);
  REQUIRE(r.trends.size() == 1);
  CHECK(r.trends[0].slope_bytes_per_iteration == static_cast<int64_t>(2 * kMiB));
  CHECK(r.trends[0].points == 5);  // the final window is not fitted
}

TEST_CASE("State created once in the first iteration is persistent", "[retention]") {
  Loop loop = trainingLoop({.iterations = 4, .retained = 0});
  TraceBuilder& t = loop.trace;
  trace::StackId adam = t.stack({{"Adam::initState", "optim.cpp", 3}});
  // Recorded after the loop but in its first iteration: the replay needs time order, so build
  // the records again with this allocation inserted at its place.
  std::vector<trace::Record> records;
  for (const trace::Record& rec : t.records()) {
    records.push_back(rec);
    if (const auto* a = std::get_if<trace::Alloc>(&rec); a != nullptr && a->timestamp == 200) {
      trace::Alloc state = *a;
      state.timestamp = 250;
      state.address = 0x50000000;
      state.size = 128 * kMiB;
      state.stack = adam;
      records.push_back(state);
    }
  }
  Report r = analyze(records);
  for (const IterationRow& row : r.iterations) {
    CHECK(memoryOf(row).idle.retained.persistent == Tally{192 * kMiB, 2});
    CHECK(memoryOf(row).idle.retained.leak == Tally{});
    CHECK(row.top_sites[0].stack == adam);  // ranked first: allocated in a counted iteration
    CHECK(row.top_sites[0].retained.dominant() == RetentionClass::kPersistent);
  }
  CHECK(r.verdict == TrendVerdict::kStable);
}

TEST_CASE("Warm-up iterations count as before the run", "[retention]") {
  Loop loop = trainingLoop({.iterations = 8, .leak = 2 * kMiB});
  Report r = analyze(loop.trace, {.warmup_iterations = 2});
  WHEN("a window of a warm-up iteration") {
    const IterationRow& row = r.iterations[1];
    CHECK(row.warmup);
    THEN("everything it retains was allocated before the counted run: persistent") {
      const IterationMemory& m = memoryOf(row);
      CHECK(m.idle.retained.persistent == Tally{64 * kMiB + 8 * kMiB + 4 * kMiB, 4});
      CHECK(m.idle.retained.total() == m.idle.retained.persistent);
    }
  }
  WHEN("a counted window") {
    const IterationRow& row = r.iterations[4];
    CHECK_FALSE(row.warmup);
    THEN("warm-up leaks are persistent, later ones leaks, the buffer inter-iteration") {
      const IterationMemory& m = memoryOf(row);
      CHECK(m.idle.retained.persistent == Tally{64 * kMiB + 4 * kMiB, 3});
      CHECK(m.idle.retained.leak == Tally{6 * kMiB, 3});
      CHECK(m.idle.retained.inter_iteration == Tally{8 * kMiB, 1});
    }
  }
  THEN("the trend starts after the warm-up") {
    CHECK(r.trends[0].first_iteration == 3);
    CHECK(r.trends[0].last_iteration == 7);
    CHECK(r.verdict == TrendVerdict::kGrowing);
  }
}

TEST_CASE("Allocations of an idle window are not retained by it", "[retention]") {
  TraceBuilder t;
  t.push(100, "step 1").pop(200);
  t.alloc(300, 0x1000, 4096);  // in window 1 (e.g. the optimizer step outside the range)
  t.push(400, "step 2").pop(500);
  t.push(600, "step 3").pop(700);
  Report r = analyze(t);
  CHECK(memoryOf(r.iterations[0]).idle.retained.total() == Tally{});
  CHECK(memoryOf(r.iterations[0]).idle.floor == 0);
  CHECK(memoryOf(r.iterations[1]).idle.retained.total() == Tally{4096, 1});
}

TEST_CASE("Top sites are capped and ranked by bytes of counted iterations", "[retention]") {
  Loop loop = trainingLoop({.iterations = 3, .leak = 1 * kMiB});
  Report r = analyze(loop.trace, {.top_sites = 1});
  for (const IterationRow& row : r.iterations) {
    REQUIRE(row.top_sites.size() == 1);
    CHECK(row.top_sites[0].stack == loop.retained_site);  // 8 MiB beats 1-3 MiB, weights last
  }
  Report none = analyze(loop.trace, {.top_sites = 0});
  CHECK(none.iterations[0].top_sites.empty());
  CHECK(none.stacks.empty());
}

TEST_CASE("A freed-and-reused address is retained once, by its current owner", "[retention]") {
  TraceBuilder t;
  trace::StackId a = t.stack({{"a", "a.cpp", 1}});
  trace::StackId b = t.stack({{"b", "b.cpp", 1}});
  t.push(100, "iteration 1");
  t.alloc(110, 0x1000, 100, {.stack = a}).free(120, 0x1000);
  t.alloc(130, 0x1000, 300, {.stack = b});
  t.pop(200);
  t.push(300, "iteration 2").free(310, 0x1000).pop(400);
  t.push(500, "iteration 3").pop(600);
  Report r = analyze(t);
  const IterationRow& row = r.iterations[0];
  REQUIRE(row.top_sites.size() == 1);
  CHECK(row.top_sites[0].stack == b);
  CHECK(row.top_sites[0].retained.inter_iteration == Tally{300, 1});
  CHECK(memoryOf(r.iterations[1]).idle.retained.total() == Tally{});
}

}  // namespace
}  // namespace memfloor::analysis::test
