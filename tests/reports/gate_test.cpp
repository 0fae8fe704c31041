// Tests of reports/gate: each threshold in both directions, run and memory matching, findings,
// and the reading of the compared fields.
#include "reports/gate.h"

#include <catch2/catch.hpp>
#include <limits>

#include "common/error.h"
#include "report/report_json.h"
#include "tests/analysis/checked_analysis.h"
#include "tests/analysis/scenarios.h"
#include "tests/reports/report_doc_builder.h"

using namespace memfloor;
using memfloor::testing::makeFinding;
using memfloor::testing::makeReport;
using memfloor::testing::makeRun;
using memfloor::testing::MemorySpec;
using memfloor::testing::oneRunReport;
using reports::Metric;

namespace {

constexpr uint64_t kMiB = uint64_t{1} << 20;
constexpr uint64_t kGiB = uint64_t{1} << 30;

reports::GateResult gate(const nlohmann::json& baseline, const nlohmann::json& current,
                         const reports::GateThresholds& thresholds = {}) {
  return reports::runGate(reports::extractMetrics(baseline, "base.json"),
                          reports::extractMetrics(current, "current.json"), thresholds);
}

const reports::GateCheck& check(const reports::GateResult& r, Metric metric,
                                const std::string& site = "") {
  for (const reports::GateCheck& c : r.checks) {
    if (c.metric == metric && c.site == site) return c;
  }
  FAIL("no check of " << reports::toString(metric) << " " << site);
  throw;  // unreachable
}

MemorySpec memory(uint64_t idle_floor, uint64_t peak, int64_t slope = 0) {
  MemorySpec m;
  m.idle_floor = idle_floor;
  m.peak = peak;
  m.slope = slope;
  return m;
}

// The gate of `base` against `base` changed by `change`, for one metric.
template <typename Change>
reports::GateResult moved(const MemorySpec& base, Change change,
                          const reports::GateThresholds& t = {}) {
  MemorySpec cur = base;
  change(cur);
  return gate(oneRunReport(base), oneRunReport(cur), t);
}

}  // namespace

TEST_CASE("gate: a report against itself passes and nothing moves") {
  MemorySpec m = memory(100 * kMiB, 120 * kMiB, 0);
  m.sites = {{"Layer::forward (layer.cpp:10)", 2 * kMiB}};
  auto doc =
      makeReport({makeRun("rank 0", {m})}, {makeFinding("aaaa", "MF001", "layer.cpp", 10, "kept")});
  reports::GateResult r = gate(doc, doc);
  CHECK_FALSE(r.regression);
  CHECK(r.checks.size() == 4);  // idle floor, peak, growth, one site
  for (const reports::GateCheck& c : r.checks) {
    CHECK(c.delta == 0);
    CHECK_FALSE(c.regression);
  }
  CHECK(r.new_findings.empty());
  CHECK(r.baseline_path == "base.json");
  CHECK(r.current_path == "current.json");
}

TEST_CASE("gate: the regression rule is delta > max(bytes, percent of the baseline)") {
  reports::Threshold t{kMiB, 1.0};
  CHECK(reports::allowedDelta(t, 10 * kMiB) == kMiB);                        // bytes dominate
  CHECK(reports::allowedDelta(t, kGiB) == 10737418);                         // floor(1 % of 1 GiB)
  CHECK(reports::allowedDelta(t, -static_cast<int64_t>(kGiB)) == 10737418);  // |baseline|
  CHECK(reports::allowedDelta({0, 0}, 5) == 0);
  CHECK(reports::allowedDelta({std::numeric_limits<uint64_t>::max(), 0}, 0) ==
        std::numeric_limits<int64_t>::max());
  CHECK(reports::allowedDelta({0, 1e300}, 1) == std::numeric_limits<int64_t>::max());
  CHECK(reports::allowedDelta({7, std::numeric_limits<double>::quiet_NaN()}, 100) == 7);
}

TEST_CASE("gate: idle floor threshold in bytes, both directions") {
  MemorySpec base = memory(10 * kMiB, 20 * kMiB);  // 1 % is 100 KiB: the 1 MiB floor rules
  auto at = [&](int64_t delta) {
    return moved(base, [&](MemorySpec& m) { m.idle_floor = base.idle_floor + delta; });
  };
  CHECK_FALSE(at(kMiB).regression);
  reports::GateResult above = at(kMiB + 1);
  CHECK(above.regression);
  CHECK(check(above, Metric::kIdleFloor).regression);
  CHECK(check(above, Metric::kIdleFloor).delta == static_cast<int64_t>(kMiB) + 1);
  CHECK(check(above, Metric::kIdleFloor).allowed == static_cast<int64_t>(kMiB));
  CHECK(above.regressions() == 1);
  CHECK_FALSE(at(-static_cast<int64_t>(9 * kMiB)).regression);  // decreases never fail
}

TEST_CASE("gate: idle floor threshold in percent, both directions") {
  MemorySpec base = memory(kGiB, 2 * kGiB);  // 1 % of 1 GiB = 10737418.24 bytes > 1 MiB
  auto at = [&](int64_t delta) {
    return moved(base, [&](MemorySpec& m) { m.idle_floor = base.idle_floor + delta; });
  };
  CHECK_FALSE(at(10737418).regression);
  CHECK(at(10737419).regression);
  CHECK(check(at(10737419), Metric::kIdleFloor).delta_percent.value() == Approx(1.0).epsilon(1e-6));
  CHECK_FALSE(at(-static_cast<int64_t>(kGiB / 2)).regression);
}

TEST_CASE("gate: peak thresholds in bytes and percent, both directions") {
  SECTION("bytes: 4 MiB on a 100 MiB peak (2 % is 2 MiB)") {
    MemorySpec base = memory(50 * kMiB, 100 * kMiB);
    auto at = [&](int64_t d) { return moved(base, [&](MemorySpec& m) { m.peak += d; }); };
    CHECK_FALSE(at(4 * kMiB).regression);
    CHECK(check(at(4 * kMiB + 1), Metric::kPeak).regression);
    CHECK_FALSE(at(-static_cast<int64_t>(kMiB)).regression);
  }
  SECTION("percent: 2 % of a 1 GiB peak") {
    MemorySpec base = memory(50 * kMiB, kGiB);
    auto at = [&](int64_t d) { return moved(base, [&](MemorySpec& m) { m.peak += d; }); };
    CHECK_FALSE(at(21474836).regression);  // floor(0.02 × 2^30)
    CHECK(at(21474837).regression);
  }
}

TEST_CASE("gate: floor growth thresholds, both directions") {
  SECTION("bytes: 512 KiB per iteration over a flat baseline") {
    MemorySpec base = memory(10 * kMiB, 20 * kMiB, 0);
    auto at = [&](int64_t slope) { return moved(base, [&](MemorySpec& m) { m.slope = slope; }); };
    CHECK_FALSE(at(512 * 1024).regression);
    reports::GateResult above = at(512 * 1024 + 1);
    CHECK(check(above, Metric::kFloorGrowth).regression);
    CHECK_FALSE(check(above, Metric::kFloorGrowth).delta_percent.has_value());
    CHECK_FALSE(at(-static_cast<int64_t>(kMiB)).regression);
  }
  SECTION("percent: 10 % of a growing baseline's slope") {
    MemorySpec base = memory(10 * kMiB, 20 * kMiB, 10 * kMiB);
    auto at = [&](int64_t d) { return moved(base, [&](MemorySpec& m) { m.slope += d; }); };
    CHECK_FALSE(at(kMiB).regression);
    CHECK(at(kMiB + 1).regression);
    CHECK_FALSE(at(-static_cast<int64_t>(10 * kMiB)).regression);  // the leak was fixed
  }
  SECTION("a current trend of fewer than 3 windows is not compared") {
    MemorySpec base = memory(10 * kMiB, 20 * kMiB, 0);
    reports::GateResult r = moved(base, [](MemorySpec& m) {
      m.slope = 100 * static_cast<int64_t>(kMiB);
      m.trend_known = false;
    });
    CHECK_FALSE(r.regression);
    for (const reports::GateCheck& c : r.checks) CHECK(c.metric != Metric::kFloorGrowth);
  }
  SECTION("a baseline trend of fewer than 3 windows counts as flat") {
    MemorySpec base = memory(10 * kMiB, 20 * kMiB, 50 * static_cast<int64_t>(kMiB));
    base.trend_known = false;
    reports::GateResult r = moved(base, [](MemorySpec& m) {
      m.trend_known = true;
      m.slope = 2 * kMiB;
    });
    CHECK(check(r, Metric::kFloorGrowth).baseline == 0);
    CHECK(check(r, Metric::kFloorGrowth).regression);
  }
}

TEST_CASE("gate: retained bytes per site, both directions") {
  SECTION("bytes: a new site retaining 1 MiB passes, one byte more fails") {
    MemorySpec base = memory(10 * kMiB, 20 * kMiB);
    auto with = [&](uint64_t bytes) {
      return moved(base, [&](MemorySpec& m) { m.sites = {{"Cache::keep (cache.cpp:7)", bytes}}; });
    };
    CHECK_FALSE(with(kMiB).regression);
    reports::GateResult above = with(kMiB + 1);
    const reports::GateCheck& c = check(above, Metric::kSiteRetained, "Cache::keep (cache.cpp:7)");
    CHECK(c.regression);
    CHECK(c.baseline == 0);
    CHECK_FALSE(c.delta_percent.has_value());
  }
  SECTION("percent: 10 % of what the site retained in the baseline") {
    MemorySpec base = memory(200 * kMiB, 300 * kMiB);
    base.sites = {{"weights", 100 * kMiB}};
    auto at = [&](int64_t d) {
      return moved(base, [&](MemorySpec& m) { m.sites[0].second += d; });
    };
    CHECK_FALSE(at(10 * kMiB).regression);  // exactly 10 %
    CHECK(check(at(10 * kMiB + 1), Metric::kSiteRetained, "weights").regression);
    CHECK_FALSE(at(-static_cast<int64_t>(100 * kMiB)).regression);
  }
  SECTION("a site gone from current is a decrease") {
    MemorySpec base = memory(10 * kMiB, 20 * kMiB);
    base.sites = {{"old", 8 * kMiB}};
    reports::GateResult r = moved(base, [](MemorySpec& m) { m.sites.clear(); });
    CHECK_FALSE(r.regression);
    CHECK(check(r, Metric::kSiteRetained, "old").current == 0);
  }
  SECTION("sites come from the steady window only, and one `where` listed twice is summed") {
    MemorySpec base = memory(10 * kMiB, 20 * kMiB);
    base.sites = {{"a", kMiB}};
    reports::GateResult r = moved(base, [](MemorySpec& m) {
      m.sites = {{"a", kMiB}, {"a", kMiB}};
    });
    CHECK(check(r, Metric::kSiteRetained, "a").current == static_cast<int64_t>(2 * kMiB));
    for (const reports::GateCheck& c : r.checks) CHECK(c.site != "decoy (iteration 1 only)");
  }
}

TEST_CASE("gate: bytes per site at the largest peak, both directions") {
  const std::string loss = "LossNode::forward (combined_1f1b.cpp:88)";
  MemorySpec base = memory(10 * kMiB, 200 * kMiB);
  base.peak_sites = {{{"weights", 100 * kMiB}, {loss, 8 * kMiB}}};
  auto at = [&](size_t site, int64_t d, const reports::GateThresholds& t = {}) {
    return moved(
        base, [&](MemorySpec& m) { (*m.peak_sites)[site].second += d; }, t);
  };
  SECTION("bytes: 4 MiB more at the peak on an 8 MiB site (10 % is 0.8 MiB)") {
    CHECK_FALSE(at(1, 4 * kMiB).regression);
    reports::GateResult above = at(1, 4 * kMiB + 1);
    CHECK(above.regression);
    const reports::GateCheck& c = check(above, Metric::kSitePeak, loss);
    CHECK(c.regression);
    CHECK(c.baseline == static_cast<int64_t>(8 * kMiB));
    CHECK(c.allowed == static_cast<int64_t>(4 * kMiB));
    CHECK(above.regressions() == 1);
    CHECK_FALSE(at(1, -static_cast<int64_t>(8 * kMiB)).regression);  // decreases never fail
  }
  SECTION("percent: 10 % of a 100 MiB site") {
    CHECK_FALSE(at(0, 10 * kMiB).regression);
    CHECK(check(at(0, 10 * kMiB + 1), Metric::kSitePeak, "weights").regression);
  }
  SECTION("a site new at the peak compares with 0, one gone is a decrease") {
    reports::GateResult r = moved(base, [&](MemorySpec& m) {
      m.peak_sites = {{{"weights", 100 * kMiB}, {"Grad::buffer (grad.cpp:3)", 5 * kMiB}}};
    });
    const reports::GateCheck& added = check(r, Metric::kSitePeak, "Grad::buffer (grad.cpp:3)");
    CHECK(added.regression);
    CHECK_FALSE(added.delta_percent.has_value());
    CHECK_FALSE(check(r, Metric::kSitePeak, loss).regression);
    CHECK(check(r, Metric::kSitePeak, loss).current == 0);
  }
  SECTION("the sites of the largest peak only, one `where` listed twice summed") {
    reports::GateResult r = moved(base, [&](MemorySpec& m) {
      m.peak_sites->push_back({loss, kMiB});
    });
    CHECK(check(r, Metric::kSitePeak, loss).current == static_cast<int64_t>(9 * kMiB));
    CHECK(check(r, Metric::kSitePeak, loss).baseline == static_cast<int64_t>(8 * kMiB));
    for (const reports::GateCheck& c : r.checks) CHECK(c.site != "decoy (not the largest peak)");
    CHECK(r.checks.size() == 5);  // idle floor, peak, growth, two sites at the peak
  }
  SECTION("a report without peak compositions (written before them): no site is compared") {
    MemorySpec old = base;
    old.peak_sites.reset();
    for (const reports::GateResult& r : {gate(oneRunReport(old), oneRunReport(base)),
                                         gate(oneRunReport(base), oneRunReport(old))}) {
      CHECK_FALSE(r.regression);
      for (const reports::GateCheck& c : r.checks) CHECK(c.metric != Metric::kSitePeak);
    }
  }
  SECTION("the thresholds are their own") {
    reports::GateThresholds t;
    t.site_peak = {kMiB, 0};
    CHECK(at(1, kMiB + 1, t).regression);
    t.site = {0, 0};  // the retained sites' threshold does not apply
    CHECK_FALSE(at(1, kMiB).regression);
  }
}

// Seed 003's shape through the analysis: the loss node's input lives from mid-iteration to its
// end. The idle floor does not move; the input, named at the peak, does.
TEST_CASE("gate: an input kept to the end of the iteration fails at the peak, not the floor") {
  // The input is smaller than the gradients: fixed, the peak is theirs, without it.
  auto report = [](bool bug) {
    analysis::test::CombinedBackward loop = analysis::test::combinedBackward(bug, 8 * kMiB);
    return report::toJson(analysis::test::merge({analysis::test::analyze(loop.trace)}));
  };
  reports::GateResult r = gate(report(false), report(true));
  CHECK(r.regression);
  CHECK_FALSE(check(r, Metric::kIdleFloor).regression);
  CHECK(check(r, Metric::kPeak).regression);
  const reports::GateCheck& c =
      check(r, Metric::kSitePeak, "combined_1f1b.cpp:88 in LossNode::forward");
  CHECK(c.regression);
  CHECK(c.baseline == 0);
  CHECK(c.current == static_cast<int64_t>(8 * kMiB));
  for (const reports::GateCheck& x : r.checks) CHECK(x.metric != Metric::kSiteRetained);
}

TEST_CASE("gate: thresholds can be tightened to fail any rise") {
  reports::GateThresholds strict;
  strict.idle_floor = {0, 0};
  MemorySpec base = memory(kGiB, kGiB);
  CHECK(moved(
            base, [](MemorySpec& m) { m.idle_floor += 1; }, strict)
            .regression);
  CHECK_FALSE(moved(
                  base, [](MemorySpec& m) { m.idle_floor -= 1; }, strict)
                  .regression);
}

TEST_CASE("gate: runs are matched by label") {
  MemorySpec small = memory(10 * kMiB, 20 * kMiB);
  MemorySpec big = memory(500 * kMiB, 800 * kMiB);
  auto base = makeReport({makeRun("rank 0", {small}), makeRun("rank 1", {big})});

  SECTION("in any order") {
    auto cur = makeReport({makeRun("rank 1", {big}), makeRun("rank 0", {small})});
    reports::GateResult r = gate(base, cur);
    CHECK_FALSE(r.regression);
    for (const reports::GateCheck& c : r.checks) CHECK(c.delta == 0);
  }
  SECTION("a run missing from current is a regression") {
    reports::GateResult r = gate(base, makeReport({makeRun("rank 0", {small})}));
    CHECK(r.regression);
    CHECK(r.regressions() == 0);
    CHECK(r.missing_runs == std::vector<std::string>{"rank 1"});
  }
  SECTION("a run new in current is reported, not compared, and passes") {
    auto cur = makeReport(
        {makeRun("rank 0", {small}), makeRun("rank 1", {big}), makeRun("rank 2", {big})});
    reports::GateResult r = gate(base, cur);
    CHECK_FALSE(r.regression);
    CHECK(r.added_runs == std::vector<std::string>{"rank 2"});
    for (const reports::GateCheck& c : r.checks) CHECK(c.run != "rank 2");
  }
  SECTION("a regression is charged to the run it happened in") {
    MemorySpec grown = big;
    grown.idle_floor += 100 * kMiB;
    reports::GateResult r =
        gate(base, makeReport({makeRun("rank 0", {small}), makeRun("rank 1", {grown})}));
    CHECK(r.regressions() == 1);
    CHECK(check(r, Metric::kIdleFloor).run == "rank 0");  // first check: unchanged
    for (const reports::GateCheck& c : r.checks)
      CHECK(c.regression == (c.run == "rank 1" && c.metric == Metric::kIdleFloor));
  }
  SECTION("repeated labels match by position") {
    auto twice = makeReport({makeRun("run.mftrace", {small}), makeRun("run.mftrace", {big})});
    reports::ReportMetrics metrics = reports::extractMetrics(twice, "r.json");
    CHECK(metrics.runs[0].label == "run.mftrace");
    CHECK(metrics.runs[1].label == "run.mftrace #2");
    CHECK_FALSE(gate(twice, twice).regression);
  }
}

TEST_CASE("gate: runs without a rank pair up in order when their file names differ") {
  MemorySpec m = memory(10 * kMiB, 20 * kMiB);
  MemorySpec grown = memory(15 * kMiB, 20 * kMiB);

  SECTION("one run on each side: the usual CI case, a new pid in the trace's name") {
    reports::GateResult r = gate(makeReport({makeRun("memfloor.ci.101.mftrace", {m})}),
                                 makeReport({makeRun("memfloor.ci.202.mftrace", {grown})}));
    CHECK(r.regression);
    CHECK(r.missing_runs.empty());
    CHECK(r.added_runs.empty());
    REQUIRE(r.paired_runs.size() == 1);
    CHECK(r.paired_runs[0].baseline == "memfloor.ci.101.mftrace");
    CHECK(r.paired_runs[0].current == "memfloor.ci.202.mftrace");
    CHECK(check(r, Metric::kIdleFloor).run == "memfloor.ci.202.mftrace");
    CHECK(check(r, Metric::kIdleFloor).regression);
  }
  SECTION("labels that match are matched first") {
    reports::GateResult r =
        gate(makeReport({makeRun("a.mftrace", {m}), makeRun("b.mftrace", {m})}),
             makeReport({makeRun("c.mftrace", {m}), makeRun("a.mftrace", {m})}));
    CHECK_FALSE(r.regression);
    REQUIRE(r.paired_runs.size() == 1);
    CHECK(r.paired_runs[0].baseline == "b.mftrace");
    CHECK(r.paired_runs[0].current == "c.mftrace");
  }
  SECTION("unequal numbers left over do not pair") {
    reports::GateResult r = gate(makeReport({makeRun("a.mftrace", {m}), makeRun("b.mftrace", {m})}),
                                 makeReport({makeRun("c.mftrace", {m})}));
    CHECK(r.regression);
    CHECK(r.paired_runs.empty());
    CHECK(r.missing_runs.size() == 2);
    CHECK(r.added_runs == std::vector<std::string>{"c.mftrace"});
  }
  SECTION("runs with a rank match by rank only") {
    reports::GateResult r = gate(makeReport({makeRun("rank 0", {m}), makeRun("rank 1", {m})}),
                                 makeReport({makeRun("rank 0", {m}), makeRun("rank 2", {m})}));
    CHECK(r.regression);
    CHECK(r.paired_runs.empty());
    CHECK(r.missing_runs == std::vector<std::string>{"rank 1"});
    CHECK(r.added_runs == std::vector<std::string>{"rank 2"});
  }
}

TEST_CASE("gate: memories on one side only compare with zero") {
  MemorySpec device = memory(10 * kMiB, 20 * kMiB);
  MemorySpec pinned = memory(8 * kMiB, 8 * kMiB);
  pinned.kind = "pinned";
  auto one = makeReport({makeRun("rank 0", {device})});
  auto two = makeReport({makeRun("rank 0", {device, pinned})});
  reports::GateResult grew = gate(one, two);
  CHECK(grew.regression);
  const reports::GateCheck& c = check(grew, Metric::kIdleFloor);
  CHECK(c.kind == "device");
  CHECK_FALSE(c.regression);
  bool pinned_regressed = false;
  for (const reports::GateCheck& k : grew.checks) {
    if (k.kind == "pinned" && k.metric == Metric::kIdleFloor) pinned_regressed = k.regression;
  }
  CHECK(pinned_regressed);
  CHECK_FALSE(gate(two, one).regression);
}

TEST_CASE("gate: a caching allocator's blocks compare as their own memory") {
  // Device 0 reserved 22 MiB (kind device) and allocated 9 MiB (kind block); device 1 has no
  // blocks. The allocated floor rises by 24 MiB inside the same reserved memory.
  MemorySpec reserved = memory(22 * kMiB, 22 * kMiB);
  MemorySpec allocated = memory(9 * kMiB, 15 * kMiB);
  allocated.kind = "block";
  allocated.sites = {{"Model.forward (model.py:40)", kMiB}};
  MemorySpec other = memory(4 * kMiB, 4 * kMiB);
  other.device = 1;
  MemorySpec grown = allocated;
  grown.idle_floor += 24 * kMiB;
  grown.sites = {{"Model.forward (model.py:40)", 25 * kMiB}};
  auto base = makeReport({makeRun("rank 0", {reserved, allocated, other})});
  auto cur = makeReport({makeRun("rank 0", {reserved, grown, other})});
  reports::GateResult r = gate(base, cur);
  CHECK(r.regression);
  size_t block_checks = 0;
  for (const reports::GateCheck& c : r.checks) {
    INFO(c.device << ":" << c.kind << " " << reports::toString(c.metric));
    CHECK(c.device_has_blocks == (c.device == 0));
    if (c.kind == "block") ++block_checks;
    const bool moved =
        c.kind == "block" && (c.metric == Metric::kIdleFloor || c.metric == Metric::kSiteRetained);
    CHECK(c.regression == moved);
    CHECK((c.delta == 24 * static_cast<int64_t>(kMiB)) == moved);
  }
  CHECK(block_checks == 4);  // idle floor, peak, growth, one site

  // A baseline without blocks: the new block memory compares with zero, and device 0's device
  // memory is named reserved on both sides of the comparison.
  reports::GateResult added = gate(makeReport({makeRun("rank 0", {reserved, other})}), base);
  CHECK(added.regression);
  for (const reports::GateCheck& c : added.checks) {
    CHECK(c.device_has_blocks == (c.device == 0));
    if (c.kind == "block" && c.metric == Metric::kIdleFloor) {
      CHECK(c.baseline == 0);
      CHECK(c.regression);
    }
  }
}

// A caching allocator through the analysis: a cache growing by 256 MiB per iteration from three
// sites of the allocator, and a list that keeps 4 MiB of blocks per iteration, two sites listed
// per window. The list is listed (the blocks' sites are ranked apart from the segments') and fails
// the gate; the segments are cached, which no site check compares: the reserved floor does.
TEST_CASE(
    "gate: a leak of blocks fails its site beside a warming cache, whose segments are no site") {
  auto report = [](uint64_t leak) {
    const analysis::test::WarmUp w =
        analysis::test::cacheWarmUp({.growing = 6, .segment_sites = 3, .leak = leak});
    return report::toJson(
        analysis::test::merge({analysis::test::analyze(w.trace, {.top_sites = 2})}));
  };
  reports::GateResult r = gate(report(0), report(4 * kMiB));
  CHECK(r.regression);
  const reports::GateCheck& site = check(r, Metric::kSiteRetained, "train.py:30 in train_step");
  CHECK(site.kind == "block");
  CHECK(site.regression);
  CHECK(site.current == static_cast<int64_t>(5 * 4 * kMiB));  // the steady window: the fifth
  for (const reports::GateCheck& c : r.checks) {
    INFO(c.kind << " " << reports::toString(c.metric) << " " << c.site);
    if (c.metric == Metric::kSiteRetained) CHECK(c.kind == "block");
    if (c.kind == "device") CHECK_FALSE(c.regression);  // the same segments on both sides
  }
  CHECK_FALSE(gate(report(0), report(0)).regression);
}

TEST_CASE("gate: new findings") {
  MemorySpec m = memory(10 * kMiB, 20 * kMiB);
  auto known = makeFinding("1111", "MF002", "a.cpp", 3, "old");
  auto fresh = makeFinding("2222", "MF001", "layer.cpp", 53, "'mgr_' keeps its device memory");
  auto base = makeReport({makeRun("rank 0", {m})}, {known});
  auto cur = makeReport({makeRun("rank 0", {m})}, {known, fresh});

  reports::GateResult r = gate(base, cur);
  CHECK(r.regression);
  REQUIRE(r.new_findings.size() == 1);
  CHECK(r.new_findings[0].id == "2222");
  CHECK(r.new_findings[0].rule == "MF001");
  CHECK(r.new_findings[0].file == "layer.cpp");
  CHECK(r.new_findings[0].line == 53);
  CHECK(r.new_findings[0].column == 5);

  reports::GateThresholds allow;
  allow.fail_on_new_findings = false;
  reports::GateResult allowed = gate(base, cur, allow);
  CHECK_FALSE(allowed.regression);
  CHECK(allowed.new_findings.size() == 1);

  CHECK_FALSE(gate(cur, base).regression);  // a finding fixed
  CHECK(gate(cur, base).new_findings.empty());
}

TEST_CASE("gate: unusable reports name the file and the field") {
  auto doc = oneRunReport(memory(kMiB, kMiB));
  auto fails_with = [](const nlohmann::json& bad, const std::string& text) {
    CHECK_THROWS_WITH(reports::extractMetrics(bad, "base.json"),
                      Catch::Contains("base.json") && Catch::Contains(text));
  };
  SECTION("no runs") {
    doc.erase("runs");
    fails_with(doc, "runs: missing");
  }
  SECTION("a peak that is not a number") {
    doc["runs"][0]["memory"][0]["peak"] = "big";
    fails_with(doc, "runs[0].memory[0].peak: expected an unsigned integer");
  }
  SECTION("a negative idle floor") {
    doc["runs"][0]["steady_idle_floor"][0]["idle_floor"] = -5;
    fails_with(doc, "runs[0].steady_idle_floor[0].idle_floor: expected an unsigned integer");
  }
  SECTION("a steady window naming an iteration the run does not have") {
    doc["runs"][0]["steady_idle_floor"][0]["iteration"] = 9;
    fails_with(doc, "iteration 9 is not in the run's iterations");
  }
  SECTION("no findings object") {
    doc.erase("findings");
    fails_with(doc, "findings: missing");
  }
  SECTION("a finding without an id") {
    doc["findings"]["items"].push_back({{"rule", "MF001"}, {"message", "m"}});
    fails_with(doc, "findings.items[0].id: missing");
  }
  SECTION("an iteration's memory without its peak") {
    doc["runs"][0]["iterations"][1]["memory"][0].erase("peak");
    fails_with(doc, "runs[0].iterations[1].memory[0].peak: missing");
  }
  SECTION("a peak composition that is not an object") {
    doc["runs"][0]["iterations"][0]["memory"][0]["peak_composition"] = "all of it";
    fails_with(doc, "runs[0].iterations[0].memory[0].peak_composition: expected an object");
  }
  SECTION("bytes beyond 2^63") {
    doc["runs"][0]["memory"][0]["peak"] = std::numeric_limits<uint64_t>::max();
    fails_with(doc, "out of range");
  }
}

TEST_CASE("gate: no iterations (no marker matched) compares peaks only") {
  auto doc = oneRunReport(memory(0, 30 * kMiB));
  doc["runs"][0]["iterations"] = nlohmann::json::array();
  doc["runs"][0]["steady_idle_floor"][0]["iteration"] = 0;
  auto grown = doc;
  grown["runs"][0]["memory"][0]["peak"] = 40 * kMiB;
  reports::GateResult r = gate(doc, grown);
  CHECK(check(r, Metric::kPeak).regression);
  CHECK_FALSE(check(r, Metric::kIdleFloor).regression);
}

// The PyTorch runs of tests/gpu/pytorch/holders.py recorded on an H200 (testdata/analysis): each
// layer keeps a tensor whose autograd graph holds its activation, and the fix drops it. The gate
// names the two holder paths; the parameters and the optimizer state, persistent by their role,
// are not compared by path.
TEST_CASE("gate: a new holder of the last census is a regression; role-persistent ones are not") {
  auto load = [](const std::string& name) {
    const std::string path = std::string(MEMFLOOR_TESTDATA_DIR) + "/analysis/" + name;
    return report::toJson(analysis::test::merge({analysis::test::analyzeFile(path)}));
  };
  const nlohmann::json fixed = load("torch_holders_graph_fixed.txt");
  const nlohmann::json bug = load("torch_holders_graph.txt");
  const reports::GateResult r = gate(fixed, bug);
  CHECK(r.regression);
  for (int layer : {0, 1}) {
    const std::string path =
        "holders.py:main.model.layers[" + std::to_string(layer) + "].mlp_norm_manager.tensor";
    const reports::GateCheck& c = check(r, Metric::kHolder, path);
    CHECK(c.kind == "block");
    CHECK(c.baseline == 0);
    CHECK(c.current == static_cast<int64_t>(64 * kMiB + 16 * 1024));  // the tensor and its graph
    CHECK(c.regression);
  }
  size_t holders = 0;
  for (const reports::GateCheck& c : r.checks) {
    if (c.metric != Metric::kHolder) continue;
    ++holders;
    CHECK(c.site.find(".weight") == std::string::npos);  // parameters and their state: by role
  }
  CHECK(holders == 2);
  // The fix against itself, and the bug against itself: nothing moved.
  CHECK_FALSE(gate(fixed, fixed).regression);
  CHECK_FALSE(gate(bug, bug).regression);
  // The bug as the baseline: the holders are gone, a decrease.
  CHECK_FALSE(check(gate(bug, fixed), Metric::kHolder,
                    "holders.py:main.model.layers[0].mlp_norm_manager.tensor")
                  .regression);
}

TEST_CASE("gate: programOf names the program a command line runs") {
  CHECK(reports::programOf("") == "");
  CHECK(reports::programOf("build-model/dist/reference_model --layers 2 --bug hc") ==
        "reference_model");
  CHECK(reports::programOf("python train.py --steps 4") == "train.py");
  CHECK(reports::programOf("python3 tests/gpu/pytorch/holders.py --case cache") == "holders.py");
  CHECK(reports::programOf("torchrun --nproc-per-node 1 train.py") == "train.py");
  CHECK(reports::programOf("/usr/bin/python3.11 -m torch.distributed.run run.py") == "run.py");
  CHECK(reports::programOf("python3 -m trainer --epochs 1") == "-m trainer");
  CHECK(reports::programOf("python3 -c pass") == "python3");
  // A program's own argument that names a script does not make it a Python run.
  CHECK(reports::programOf("./bench --config tune.py") == "bench");
}

TEST_CASE("gate: compared runs of different programs are listed once, the verdict unchanged") {
  MemorySpec m = memory(10 * kMiB, 20 * kMiB);
  MemorySpec grown = memory(15 * kMiB, 20 * kMiB);
  auto run = [](const std::string& label, const MemorySpec& spec, const std::string& command) {
    nlohmann::json j = makeRun(label, {spec});
    j["process"] = {{"command_line", command}};
    return j;
  };
  const nlohmann::json torch =
      makeReport({run("rank 0", m, "python train.py"), run("rank 1", m, "python train.py")});
  const nlohmann::json native = makeReport({run("rank 0", grown, "build/dist/reference_model"),
                                            run("rank 1", grown, "build/dist/reference_model")});

  SECTION("a PyTorch run and a C++ binary") {
    const reports::GateResult r = gate(torch, native);
    CHECK(r.regression);  // compared all the same
    REQUIRE(r.other_programs.size() == 1);
    CHECK(r.other_programs[0].baseline == "train.py");
    CHECK(r.other_programs[0].current == "reference_model");
  }
  SECTION("the same programs, built elsewhere or given other arguments") {
    const nlohmann::json rebuilt =
        makeReport({run("rank 0", m, "build-debug/reference_model --iterations 8"),
                    run("rank 1", m, "./reference_model")});
    CHECK(gate(native, rebuilt).other_programs.empty());
    CHECK(gate(torch, makeReport({run("rank 0", m, "python3 train.py --steps 9"),
                                  run("rank 1", m, "torchrun train.py")}))
              .other_programs.empty());
  }
  SECTION("a run without a command line (a memory snapshot's) has no program to compare") {
    CHECK(gate(torch, makeReport({run("rank 0", m, ""), run("rank 1", m, "")}))
              .other_programs.empty());
    CHECK(gate(makeReport({makeRun("rank 0", {m})}), native).other_programs.empty());
  }
  SECTION("a command line of the wrong type is an error naming the field") {
    nlohmann::json bad = native;
    bad["runs"][1]["process"]["command_line"] = 7;
    CHECK_THROWS_WITH(reports::extractMetrics(bad, "bad.json"),
                      Catch::Contains("runs[1].process.command_line"));
  }
}
