// Tests of detected iterations: PeriodDetector (the period), IdleCuts (the cuts) and the three
// replays of analyzeTrace on a training loop whose markers are not looked at, and on the shipped
// model traces started later, with fewer allocations and with jittered times.
#include "analysis/period_detector.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <random>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "analysis/analysis.h"
#include "analysis/analyze_traces.h"
#include "analysis/idle_cuts.h"
#include "checked_analysis.h"
#include "invariants.h"
#include "report/report_json.h"
#include "reports/report_table.h"
#include "scenarios.h"
#include "tests/trace/trace_test_util.h"
#include "trace/source.h"

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

TEST_CASE("Allocations at one instant give no period", "[detect]") {
  // A snapshot's state: every block made at the trace's start. Once a period of 0 ns, and an
  // iteration per block.
  PeriodDetector d;
  for (uint64_t i = 0; i < 1000; ++i) d.onAlloc(kDevice0, 7, 4096, 500);
  CHECK_FALSE(d.choose());
  AND_THEN("a loop after them is still found") {
    for (uint64_t i = 0; i < 10; ++i) d.onAlloc(kDevice0, 8, 64, 1000 * i + 1000);
    const std::optional<DetectedPeriod> p = d.choose();
    REQUIRE(p);
    CHECK(p->stack == 8);
    CHECK(p->period_ns == 1000);
  }
}

TEST_CASE("A short regular set-up loop loses to the training loop", "[detect]") {
  PeriodDetector d;
  for (uint64_t i = 0; i < 100; ++i) d.onAlloc(kDevice0, 1, 1 << 20, 10 * i);  // weights
  for (uint64_t i = 0; i < 5; ++i) d.onAlloc(kDevice0, 2, 4096, 10'000 + 1000 * i);
  const std::optional<DetectedPeriod> p = d.choose();
  REQUIRE(p);
  CHECK(p->stack == 2);  // 100 periods of 10 ns cover 990 ns, less than half of 4000
}

// IdleCuts fed memory events one after the other, each given by the quiet gap before it.
struct CutsFeed {
  IdleCuts cuts;
  uint64_t ordinal = 0;
  uint64_t t = 0;
  void operator()(uint64_t gap, uint64_t live, bool anchor) {
    const uint64_t previous = t;
    t += gap;
    cuts.onMemoryEvent(ordinal++, t, previous, live, anchor);
  }
};

TEST_CASE("The idle window is the long quiet gap with the fewest live bytes", "[detect]") {
  DetectedPeriod period;
  period.every = 1;
  CutsFeed event{IdleCuts(period)};
  // Per cycle: a 500 ns gap with 100 bytes live; a 320 ns gap with 70 (the idle window: long
  // enough, fewest bytes); a 100 ns gap with 10 (fewer, but too short to be idle); then the 80 ns
  // gap that the next mark ends.
  event(0, 0, true);  // the first mark: set-up before it is not a cycle
  for (int i = 0; i < 3; ++i) {
    event(500, 100, false);
    event(320, 70, false);  // this event ends the idle window
    event(100, 10, false);
    event(80, 60, true);
  }
  const std::optional<DetectedIterations> found = event.cuts.finish();
  REQUIRE(found);
  CHECK(found->cuts == std::vector<uint64_t>{2, 6, 10});
}

TEST_CASE("A long first cycle is searched in its last period only", "[detect]") {
  DetectedPeriod period;
  period.period_ns = 1000;
  CutsFeed event{IdleCuts(period)};
  // A step: a 100 ns gap with 80 bytes live (too short to be idle), the 400 ns idle window with
  // 100, then 300 ns with 150 and the 200 ns gap that the next mark ends, with 120.
  auto step = [&] {
    event(100, 80, false);
    event(400, 100, false);  // ends the idle window
    event(300, 150, false);
    event(200, 120, true);
  };
  event(0, 0, true);  // the first mark: the warm-up step begins
  // Warm-up, four periods long: a 2500 ns quiet gap before the model's state exists (10 bytes
  // live: the fewest of the whole cycle, and its longest gap), then busy until its last period.
  event(2500, 10, false);
  for (int i = 0; i < 14; ++i) event(100, 200, false);
  step();
  step();
  step();
  const std::optional<DetectedIterations> found = event.cuts.finish();
  REQUIRE(found);
  // Ordinals: the mark 0, the warm-up 1-15, then four events per step, the idle window's second.
  CHECK(found->cuts == std::vector<uint64_t>{17, 21, 25});
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
                                    "named this'): period 1.0 µs, from the allocations of "
                                    "32.0 MiB at layer.cpp:40 in Layer::forward\n"));
  const nlohmann::json run = report::toJson(detected);
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

// The model's traces (recorded on an H200, docs/design.md "Detected iterations") in timestamp
// order, without their trailer: the tests below change them, encodeTrace writes a new one.
std::vector<trace::Record> modelTrace(const std::string& name) {
  const std::string path = std::string(MEMFLOOR_TESTDATA_DIR) + "/model/" + name + ".mftrace";
  std::vector<trace::Record> records =
      trace::testing::readAll<trace::TimeOrderReader>(trace::testing::readFile(path));
  REQUIRE(std::holds_alternative<trace::Trailer>(records.back()));
  records.pop_back();
  return records;
}

bool isMemoryEvent(const trace::Record& r) {
  return std::holds_alternative<trace::Alloc>(r) || std::holds_alternative<trace::Free>(r);
}

Report analyzeBlind(const std::vector<trace::Record>& records) {
  AnalysisOptions blind;
  blind.iteration_pattern = "no marker is named this";
  return analyzeBytes(encodeTrace(records), "model.mftrace", blind);
}

// Where the detected iterations begin: the timestamps of the events cut before.
std::vector<uint64_t> cutTimes(const Report& r) {
  std::vector<uint64_t> times;
  for (const IterationRow& row : r.iterations) times.push_back(row.start_ns);
  return times;
}

bool samePeriod(const DetectedPeriod& a, const DetectedPeriod& b) {
  const auto p = static_cast<double>(a.period_ns);
  return std::abs(static_cast<double>(b.period_ns) - p) <= PeriodDetector::kTolerance * p;
}

const char* const kModelTraces[] = {"fixed", "hc-bug", "combined-loss-bug"};

// A trace that starts later (the hook attached later, the program set up differently) loses the
// cuts it no longer holds, and at most the one of the cycle it starts in (before the period's
// first mark is set-up); the others are the same events.
void checkSuffixOf(const std::vector<uint64_t>& cuts, const std::vector<uint64_t>& full,
                   uint64_t dropped_until_ns) {
  REQUIRE(cuts.size() <= full.size());
  const size_t lost = full.size() - cuts.size();
  const auto dropped = static_cast<size_t>(
      std::count_if(full.begin(), full.end(), [&](uint64_t t) { return t <= dropped_until_ns; }));
  CHECK(lost <= dropped + 1);
  CHECK(cuts == std::vector<uint64_t>(full.begin() + static_cast<ptrdiff_t>(lost), full.end()));
}

// The model traces without a prefix (what drop(records, k, dropped_until_ns) leaves of them, for
// k up to max_dropped) give the same period and the same cuts, up to what checkSuffixOf allows.
template <typename Drop>
void checkWithoutPrefix(size_t max_dropped, Drop&& drop) {
  constexpr size_t kStep = 20;
  for (const char* name : kModelTraces) {
    const std::vector<trace::Record> records = modelTrace(name);
    const Report full = analyzeBlind(records);
    REQUIRE(full.detection);
    REQUIRE(full.iterations.size() == 3);
    for (size_t k = kStep; k <= max_dropped; k += kStep) {
      INFO(name << ": the first " << k << " dropped");
      uint64_t dropped_until_ns = 0;
      const Report r = analyzeBlind(drop(records, k, dropped_until_ns));
      REQUIRE(r.detection);
      CHECK(samePeriod(*full.detection, *r.detection));
      checkSuffixOf(cutTimes(r), cutTimes(full), dropped_until_ns);
    }
  }
}

TEST_CASE("Detected cuts do not depend on where the trace starts", "[detect]") {
  // Up to 1100 memory events: past the set-up, the warm-up step and the first cut.
  checkWithoutPrefix(
      1100, [](const std::vector<trace::Record>& records, size_t k, uint64_t& dropped_until_ns) {
        std::vector<trace::Record> later;
        size_t dropped = 0;
        for (const trace::Record& r : records) {
          if (isMemoryEvent(r) && dropped < k) {
            ++dropped;
            dropped_until_ns = trace::timestampOf(r);
            continue;
          }
          later.push_back(r);
        }
        return later;
      });
}

TEST_CASE("Detected cuts do not depend on the first allocations", "[detect]") {
  // The first k allocations never made (with their frees): a set-up that allocates less, or a
  // warm-up step that makes fewer of the loop's own allocations.
  checkWithoutPrefix(
      600, [](const std::vector<trace::Record>& records, size_t k, uint64_t& dropped_until_ns) {
        std::set<std::pair<uint32_t, uint64_t>> never_made;  // (device, address) now live
        std::vector<trace::Record> fewer;
        size_t dropped = 0;
        for (const trace::Record& r : records) {
          if (const auto* a = std::get_if<trace::Alloc>(&r); a != nullptr && dropped < k) {
            ++dropped;
            dropped_until_ns = a->timestamp;
            never_made.insert({a->device, a->address});
            continue;
          }
          if (const auto* f = std::get_if<trace::Free>(&r);
              f != nullptr && never_made.erase({f->device, f->address}) > 0) {
            continue;
          }
          fewer.push_back(r);
        }
        return fewer;
      });
}

TEST_CASE("Detected cuts do not depend on small timing jitter", "[detect]") {
  // Every time between two records stretched or shrunk by up to 5% (their order kept), as two
  // runs of one program differ: the same events are cut.
  constexpr double kJitter = 0.05;
  constexpr uint64_t kSeeds = 20;
  for (const char* name : kModelTraces) {
    const std::vector<trace::Record> records = modelTrace(name);
    const Report full = analyzeBlind(records);
    REQUIRE(full.detection);
    for (uint64_t seed = 1; seed <= kSeeds; ++seed) {
      INFO(name << ": jitter seed " << seed);
      std::mt19937_64 rng(seed);
      std::uniform_real_distribution<double> stretch(1 - kJitter, 1 + kJitter);
      std::vector<trace::Record> jittered = records;
      std::map<uint64_t, uint64_t> original;              // jittered time -> recorded time
      std::optional<std::pair<uint64_t, uint64_t>> last;  // (recorded, jittered)
      for (trace::Record& r : jittered) {
        if (!trace::isTimed(r)) continue;
        const uint64_t t = trace::timestampOf(r);
        const uint64_t moved =
            last ? last->second + static_cast<uint64_t>(std::llround(
                                      static_cast<double>(t - last->first) * stretch(rng)))
                 : t;
        std::visit(
            [moved](auto& timed) {
              if constexpr (requires { timed.timestamp; }) timed.timestamp = moved;
            },
            r);
        original[moved] = t;
        last = {t, moved};
      }
      const Report r = analyzeBlind(jittered);
      REQUIRE(r.detection);
      CHECK(samePeriod(*full.detection, *r.detection));
      std::vector<uint64_t> cuts;
      for (uint64_t t : cutTimes(r)) cuts.push_back(original.at(t));
      CHECK(cuts == cutTimes(full));
    }
  }
}

TEST_CASE("Every allocation that recurs with the period gives the same cuts", "[detect]") {
  // Allocations of the hc-bug trace that recur four, four, two and eight times a step; the first
  // three also come early in the long warm-up step, the last only near its end.
  // Whichever the detector picks, the cuts are the same events.
  const std::string path = std::string(MEMFLOOR_TESTDATA_DIR) + "/model/hc-bug.mftrace";
  struct Anchor {
    trace::StackId stack;
    uint64_t size;
    uint32_t every;
    uint64_t period_ns;
  };
  std::optional<std::vector<uint64_t>> first;
  for (const Anchor& a : {Anchor{51, 1024, 4, 29'676'403}, Anchor{53, 24576, 4, 29'682'109},
                          Anchor{49, 65536, 2, 29'781'169}, Anchor{134, 262144, 8, 30'077'727}}) {
    INFO("stack " << a.stack);
    AnalysisOptions options;
    options.iteration_pattern = "no marker is named this";
    options.find_cuts = DetectedPeriod{kDevice0, a.stack, a.size, a.every, 0, a.period_ns, 0, {}};
    Analysis analysis(options);
    const trace::FileSource source(path);
    const TraceInput input = replayTrace(source, analysis);
    checkInvariants(analysis.finish(input));
    REQUIRE(analysis.detectedIterations());
    const std::vector<uint64_t>& cuts = analysis.detectedIterations()->cuts;
    CHECK(cuts.size() == 3);
    if (!first) first = cuts;
    CHECK(cuts == *first);
  }
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
