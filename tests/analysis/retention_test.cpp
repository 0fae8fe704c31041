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

struct ExtraAlloc {
  uint64_t timestamp, address, size;
  trace::StackId stack;
};

// The builder's records with one more allocation, like the one made at `after_ns` and right after
// it: recorded after the loop, but the replay needs time order.
std::vector<trace::Record> withAlloc(const TraceBuilder& t, uint64_t after_ns, ExtraAlloc extra) {
  std::vector<trace::Record> records;
  for (const trace::Record& rec : t.records()) {
    records.push_back(rec);
    if (const auto* a = std::get_if<trace::Alloc>(&rec); a != nullptr && a->timestamp == after_ns) {
      trace::Alloc added = *a;
      added.timestamp = extra.timestamp;
      added.address = extra.address;
      added.size = extra.size;
      added.stack = extra.stack;
      records.push_back(added);
    }
  }
  return records;
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
      // The two retaining sites' stacks, and the activations' that the peaks list.
      REQUIRE(r.stacks.size() == 3);
      CHECK(r.stacks[0].id == loop.weights_site);
      CHECK(r.stacks[0].frames.size() == 2);
      CHECK(r.stacks[1].id == loop.activation_site);
      CHECK(r.stacks[2].id == loop.retained_site);
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
  // Recorded after the loop but in its first iteration.
  std::vector<trace::Record> records = withAlloc(t, 200, {250, 0x50000000, 128 * kMiB, adam});
  Report r = analyze(records);
  for (const IterationRow& row : r.iterations) {
    CHECK(memoryOf(row).idle.retained.persistent == Tally{192 * kMiB, 2});
    CHECK(memoryOf(row).idle.retained.leak == Tally{});
    CHECK(row.top_sites[0].stack == adam);  // ranked first: allocated in a counted iteration
    CHECK(row.top_sites[0].retained.dominant() == RetentionClass::kPersistent);
  }
  CHECK(r.verdict == TrendVerdict::kStable);
}

// The run ends with its last complete iteration: what the process frees after it (an interpreter
// at exit) is teardown, and each allocation's class is its fate at the run's end.

TEST_CASE("Optimizer state made in the first iteration and freed at exit is persistent",
          "[retention]") {
  Loop loop = trainingLoop({.iterations = 5, .retained = 0, .state = 128 * kMiB, .teardown = true});
  Report r = analyze(loop.trace);
  REQUIRE(r.iterations.size() == 5);
  for (const IterationRow& row : r.iterations) {
    if (row.idle_final) continue;
    INFO("iteration " << row.index);
    const IterationMemory& m = memoryOf(row);
    CHECK(m.idle.floor == 192 * kMiB);
    CHECK(m.idle.retained.persistent == Tally{192 * kMiB, 2});
    CHECK(m.idle.retained.inter_iteration == Tally{});
    CHECK(m.idle.retained.leak == Tally{});
    REQUIRE(!row.top_sites.empty());
    CHECK(row.top_sites[0].stack == loop.state_site);
    CHECK(row.top_sites[0].retained.persistent == Tally{128 * kMiB, 1});
  }
  THEN("the final window is the teardown: it reports what outlived it, and decides nothing") {
    const IterationMemory& last = memoryOf(r.iterations.back());
    CHECK(r.iterations.back().idle_final);
    CHECK(last.idle.floor == 0);
    CHECK(last.idle.retained.total() == Tally{});
    REQUIRE(r.steady.size() == 1);
    CHECK(r.steady[0].iteration == 1);  // the first window that another iteration ends
    CHECK(r.steady[0].idle_floor == 192 * kMiB);
    CHECK(r.trends[0].points == 4);
    CHECK(r.verdict == TrendVerdict::kStable);
  }
}

TEST_CASE("A list that gains a tensor every iteration is a leak, though freed at exit",
          "[retention]") {
  Loop loop = trainingLoop({.iterations = 6, .retained = 0, .leak = 4 * kMiB, .teardown = true});
  Report r = analyze(loop.trace);
  REQUIRE(r.iterations.size() == 6);
  for (const IterationRow& row : r.iterations) {
    if (row.idle_final) continue;
    INFO("iteration " << row.index);
    const IterationMemory& m = memoryOf(row);
    CHECK(m.idle.floor == 64 * kMiB + row.index * 4 * kMiB);
    CHECK(m.idle.retained.leak == Tally{row.index * 4 * kMiB, row.index});
    CHECK(m.idle.retained.inter_iteration == Tally{});
    REQUIRE(!row.top_sites.empty());
    CHECK(row.top_sites[0].stack == loop.leak_site);
    CHECK(row.top_sites[0].retained.leak == Tally{row.index * 4 * kMiB, row.index});
  }
  CHECK(memoryOf(r.iterations.back()).idle.retained.total() == Tally{});
  CHECK(r.verdict == TrendVerdict::kGrowing);
  CHECK(r.trends[0].slope_bytes_per_iteration == static_cast<int64_t>(4 * kMiB));
}

TEST_CASE("A buffer kept until the next forward stays inter-iteration when the run ends",
          "[retention]") {
  WHEN("the process frees the last one at exit") {
    Loop loop = trainingLoop({.iterations = 5, .teardown = true});
    Report r = analyze(loop.trace);
    for (const IterationRow& row : r.iterations) {
      if (row.idle_final) continue;
      INFO("iteration " << row.index);
      const IterationMemory& m = memoryOf(row);
      CHECK(m.idle.retained.inter_iteration == Tally{8 * kMiB, 1});
      CHECK(m.idle.retained.persistent == Tally{64 * kMiB, 1});
      CHECK(m.idle.retained.leak == Tally{});
      CHECK(row.top_sites[0].stack == loop.retained_site);
      CHECK(row.top_sites[0].retained.dominant() == RetentionClass::kInterIteration);
    }
    THEN("the last one, freed during the final window, is retained by none") {
      CHECK(memoryOf(r.iterations.back()).idle.retained.total() == Tally{});
    }
  }
  WHEN("the trace is cut inside an iteration whose forward freed the last one") {
    // The run ends with iteration 5: the cut iteration's frees are after it. The buffer of
    // iteration 5 counts as never freed, and its site's pattern makes it inter-iteration; a
    // one-off buffer of iteration 5 that the cut iteration frees is made once and kept.
    Loop loop = trainingLoop({.iterations = 5});
    TraceBuilder& t = loop.trace;
    const trace::StackId once = t.stack({{"Cache::fill", "cache.cpp", 9}});
    TraceBuilder cut;
    for (const trace::Record& rec : withAlloc(t, 4300, {4350, 0x60000000, 2 * kMiB, once})) {
      cut.record(rec);
    }
    cut.push(5100, "iteration 6").free(5120, 0x30000000 + 4 * 0x1000000).free(5130, 0x60000000);
    Report r = analyze(cut);
    REQUIRE(r.iterations.size() == 6);
    CHECK_FALSE(r.iterations.back().complete);
    const IterationRow& row = r.iterations[4];
    const IterationMemory& m = memoryOf(row);
    CHECK(m.idle.retained.inter_iteration == Tally{8 * kMiB, 1});
    CHECK(m.idle.retained.persistent == Tally{66 * kMiB, 2});
    const RetainedSite* one_off = siteOf(row, once);
    REQUIRE(one_off != nullptr);
    CHECK(one_off->retained.persistent == Tally{2 * kMiB, 1});
  }
}

TEST_CASE("Detected iterations: the exit inside the last one decides no class", "[retention]") {
  // Without markers the last detected iteration runs to the end of the trace, teardown included:
  // the run ends with the one before it. The first marked iteration is set-up to the detector, so
  // its leaked buffer is persistent.
  Loop loop = trainingLoop({.iterations = 6, .leak = 4 * kMiB, .teardown = true});
  AnalysisOptions blind;
  blind.iteration_pattern = "no marker is named this";
  Report r = analyze(loop.trace, blind);
  REQUIRE(r.iteration_source == IterationSource::kDetected);
  REQUIRE(r.iterations.size() == 5);
  CHECK_FALSE(r.iterations.back().complete);
  for (size_t i = 0; i + 1 < r.iterations.size(); ++i) {
    INFO("detected iteration " << i + 1);
    const IterationMemory& m = memoryOf(r.iterations[i]);
    CHECK(m.idle.retained.persistent == Tally{68 * kMiB, 2});
    CHECK(m.idle.retained.inter_iteration == Tally{8 * kMiB, 1});
    CHECK(m.idle.retained.leak == Tally{(i + 1) * 4 * kMiB, i + 1});
  }
  CHECK(r.verdict == TrendVerdict::kGrowing);
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
