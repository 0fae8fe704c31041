// Tests of detected iterations: PeriodDetector (the period), IdleCuts (the cuts) and the three
// replays of analyzeTrace on a training loop whose markers are not looked at.
#include "analysis/period_detector.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <random>

#include "analysis/analysis.h"
#include "analysis/idle_cuts.h"
#include "checked_analysis.h"
#include "reports/report_json.h"
#include "reports/report_table.h"
#include "scenarios.h"

namespace memfloor::analysis::test {
namespace {

constexpr MemoryKey kDevice0{0, trace::MemoryKind::kDevice};

TEST_CASE("An allocation once per iteration gives the period", "[detect]") {
  PeriodDetector d;
  for (uint64_t i = 0; i < 10; ++i) {
    d.onAlloc(kDevice0, 7, 4096, 1000 * i + 200);
    d.onAlloc(kDevice0, 8, 64, 1000 * i + 200 + (i * 37) % 500);  // irregular
  }
  const std::optional<DetectedPeriod> p = d.choose();
  REQUIRE(p);
  CHECK(p->stack == 7);
  CHECK(p->size == 4096);
  CHECK(p->every == 1);
  CHECK(p->occurrences == 10);
  CHECK(p->period_ns == 1000);
  CHECK(p->regular_permille == 1000);
}

TEST_CASE("An allocation per micro-batch gives the period of the iteration", "[detect]") {
  // Two micro-batches 100 ns apart, then 900 ns to the next iteration: gaps alternate, every
  // second one is regular.
  PeriodDetector d;
  for (uint64_t i = 0; i < 6; ++i) {
    d.onAlloc(kDevice0, 3, 512, 1000 * i);
    d.onAlloc(kDevice0, 3, 512, 1000 * i + 100);
  }
  const std::optional<DetectedPeriod> p = d.choose();
  REQUIRE(p);
  CHECK(p->every == 2);
  CHECK(p->period_ns == 1000);
}

TEST_CASE("A burst per iteration gives its size as the lag, not a harmonic", "[detect]") {
  // Four allocations 10 ns apart every 1000 ns: lag 4 is exact, lag 3 agrees 3 times in 4, lag 8
  // is twice the period.
  PeriodDetector d;
  for (uint64_t i = 0; i < 12; ++i) {
    for (uint64_t k = 0; k < 4; ++k) d.onAlloc(kDevice0, 5, 2048, 1000 * i + 10 * k);
  }
  const std::optional<DetectedPeriod> p = d.choose();
  REQUIRE(p);
  CHECK(p->every == 4);
  CHECK(p->period_ns == 1000);
  CHECK(p->regular_permille == 1000);
}

TEST_CASE("Warm-up outliers cost votes, not the period", "[detect]") {
  PeriodDetector d;
  uint64_t t = 0;
  for (int i = 0; i < 20; ++i) {
    t += i < 3 ? 5000 : 1000 + (i % 3) * 20;  // three slow first steps, then 2% jitter
    d.onAlloc(kDevice0, 9, 4096, t);
  }
  const std::optional<DetectedPeriod> p = d.choose();
  REQUIRE(p);
  CHECK(p->every == 1);
  CHECK(p->period_ns >= 1000);
  CHECK(p->period_ns <= 1040);
  CHECK(p->regular_permille < 1000);
}

TEST_CASE("Irregular or too few occurrences give no period", "[detect]") {
  PeriodDetector d;
  std::mt19937_64 rng(5);
  uint64_t t = 0;
  for (int i = 0; i < 200; ++i) {
    t += 1 + rng() % 10'000;  // gaps spread from 1 to 10^4 ns
    d.onAlloc(kDevice0, 1, 256, t);
  }
  d.onAlloc(kDevice0, 2, 256, 10);  // regular but only twice: one period, not three
  d.onAlloc(kDevice0, 2, 256, 20);
  CHECK_FALSE(d.choose());
}

TEST_CASE("A short regular set-up loop loses to the training loop", "[detect]") {
  PeriodDetector d;
  for (uint64_t i = 0; i < 100; ++i) d.onAlloc(kDevice0, 1, 1 << 20, 10 * i);  // weights
  for (uint64_t i = 0; i < 5; ++i) d.onAlloc(kDevice0, 2, 4096, 10'000 + 1000 * i);
  const std::optional<DetectedPeriod> p = d.choose();
  REQUIRE(p);
  CHECK(p->stack == 2);  // 100 periods of 10 ns cover 990 ns, less than half of 4000
}

TEST_CASE("The idle window is the long quiet gap with the fewest live bytes", "[detect]") {
  DetectedPeriod period;
  period.every = 1;
  IdleCuts cuts(period);
  // Per cycle: a 500 ns gap with 100 bytes live; a 320 ns gap with 70 (the idle window: long
  // enough, fewest bytes); a 100 ns gap with 10 (fewer, but too short to be idle); then the 80 ns
  // gap that the next mark ends.
  uint64_t ordinal = 0;
  uint64_t t = 0;
  auto event = [&](uint64_t gap, uint64_t live, bool anchor) {
    const uint64_t previous = t;
    t += gap;
    cuts.onMemoryEvent(ordinal++, t, previous, live, anchor);
  };
  event(0, 0, true);  // the first mark: set-up before it is not a cycle
  for (int i = 0; i < 3; ++i) {
    event(500, 100, false);
    event(320, 70, false);  // this event ends the idle window
    event(100, 10, false);
    event(80, 60, true);
  }
  const std::optional<DetectedIterations> found = cuts.finish();
  REQUIRE(found);
  CHECK(found->cuts == std::vector<uint64_t>{2, 6, 10});
}

TEST_CASE("One cycle gives no cuts", "[detect]") {
  IdleCuts cuts(DetectedPeriod{});
  cuts.onMemoryEvent(0, 10, 10, 0, true);
  cuts.onMemoryEvent(1, 500, 10, 5, false);
  cuts.onMemoryEvent(2, 900, 500, 5, true);
  CHECK_FALSE(cuts.finish());
}

TEST_CASE("Without markers, detected iterations have the idle floors of the marked ones",
          "[detect]") {
  const Loop loop = trainingLoop({.iterations = 6});
  const Report marked = analyze(loop.trace, {});
  REQUIRE(marked.iteration_source == IterationSource::kMarkers);
  CHECK_FALSE(marked.detection);

  AnalysisOptions blind;
  blind.iteration_pattern = "no marker is named this";
  const Report detected = analyze(loop.trace, blind);
  REQUIRE(detected.iteration_source == IterationSource::kDetected);
  REQUIRE(detected.detection);
  CHECK(detected.detection->stack == loop.activation_site);  // the first of two once-per-iteration
  CHECK(detected.detection->period_ns == 1000);
  // The first iteration is set-up to the detector; each other begins where its forward frees the
  // buffer the iteration before kept, after the idle window.
  REQUIRE(detected.iterations.size() == 5);
  for (size_t i = 0; i + 1 < detected.iterations.size(); ++i) {
    const IterationRow& d = detected.iterations[i];
    const IterationRow& m = marked.iterations[i + 1];
    INFO("detected iteration " << d.index);
    CHECK(d.start_ns == m.start_ns + 20);  // the free at base + 120, after the marker at + 100
    CHECK(d.complete);
    REQUIRE(d.memory.size() == m.memory.size());
    CHECK(d.memory[0].idle.floor == m.memory[0].idle.floor);
    CHECK(d.memory[0].idle.retained == m.memory[0].idle.retained);
  }
  CHECK_FALSE(detected.iterations.back().complete);
  const std::string table = reports::formatTable(detected);
  CHECK_THAT(table, Catch::Contains("iterations: 5 detected (no marker matches 'no marker is "
                                    "named this'): period 1.0 us, from the allocations of "
                                    "32.0 MiB at layer.cpp:40 in Layer::forward\n"));
  const nlohmann::json run = reports::toJson(detected);
  CHECK(run.at("iteration_source") == "detected");
  CHECK(run.at("detection") == nlohmann::json{{"device", 0},
                                              {"kind", "device"},
                                              {"stack", loop.activation_site},
                                              {"where", "layer.cpp:40 in Layer::forward"},
                                              {"size", 32 * kMiB},
                                              {"every", 1},
                                              {"occurrences", 6},
                                              {"period_ns", 1000},
                                              {"regular_permille", 1000}});

  blind.detect_iterations = false;
  CHECK(analyze(loop.trace, blind).iteration_source == IterationSource::kUnknown);
}

TEST_CASE("Detection holds up on random traces, timestamps near 2^64 included", "[detect]") {
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    std::mt19937_64 rng(seed);
    TraceBuilder t;
    const trace::StackId stack = t.stack({{"f", "f.cpp", 1}});
    uint64_t now = seed % 2 == 0 ? UINT64_MAX - 1'000'000 : 0;
    for (int i = 0; i < 400; ++i) {
      now += rng() % (seed % 3 == 0 ? 3 : 2000);  // some seeds: many equal timestamps
      const uint64_t address = 0x1000 * (1 + rng() % 16);
      const At at{.device = static_cast<uint32_t>(rng() % 2), .stack = rng() % 2 ? stack : 0};
      if (rng() % 2) {
        t.alloc(now, address, 256 << (rng() % 3), at);
      } else {
        t.free(now, address, at);
      }
    }
    AnalysisOptions blind;
    blind.iteration_pattern = "nothing";
    const Report r = analyze(t, blind);
    INFO("seed " << seed);
    CHECK(r.iteration_source != IterationSource::kMarkers);
  }
}

}  // namespace
}  // namespace memfloor::analysis::test
