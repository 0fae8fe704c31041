// Tests of reports/gate_output: the table, Markdown, GitHub annotations and memfloor.gate/1 JSON.
#include "reports/gate_output.h"

#include <catch2/catch.hpp>
#include <set>
#include <string>

#include "tests/reports/report_doc_builder.h"

using namespace memfloor;
using memfloor::testing::makeFinding;
using memfloor::testing::makeReport;
using memfloor::testing::makeRun;
using memfloor::testing::MemorySpec;
using memfloor::testing::oneRunReport;

namespace {

constexpr uint64_t kMiB = uint64_t{1} << 20;

MemorySpec spec(uint64_t idle_floor, uint64_t peak,
                std::vector<std::pair<std::string, uint64_t>> sites = {}) {
  MemorySpec m;
  m.idle_floor = idle_floor;
  m.peak = peak;
  m.sites = std::move(sites);
  return m;
}

// Fixed vs. a bug: the idle floor rises by 2 MiB, the peak moves a little, one site is new and a
// finding appears; rank 1 is gone and rank 2 is new.
reports::GateResult regressed() {
  auto base = makeReport({makeRun("rank 0", {spec(100 * kMiB, 110 * kMiB, {{"w", 64 * kMiB}})}),
                          makeRun("rank 1", {spec(kMiB, kMiB)})});
  auto cur = makeReport(
      {makeRun("rank 0", {spec(102 * kMiB, 111 * kMiB,
                               {{"w", 64 * kMiB}, {"Mgr::keep|x (m.cpp:9)", 2 * kMiB}})}),
       makeRun("rank 2", {spec(kMiB, kMiB)})},
      {makeFinding("abcd", "MF001", "src/a,b.cpp", 53, "keeps 50% of it:\nall")});
  return reports::runGate(reports::extractMetrics(base, "base.json"),
                          reports::extractMetrics(cur, "cur.json"), {});
}

// A site holding 6 MiB more at the largest peak (4 MiB allowed), nothing else moved.
reports::GateResult peakSiteGrew() {
  MemorySpec base = spec(100 * kMiB, 200 * kMiB);
  base.peak_sites = {{{"Loss|node (l.cpp:88)", 2 * kMiB}}};
  MemorySpec cur = base;
  cur.peak_sites = {{{"Loss|node (l.cpp:88)", 8 * kMiB}}};
  return reports::runGate(reports::extractMetrics(oneRunReport(base), "base.json"),
                          reports::extractMetrics(oneRunReport(cur), "cur.json"), {});
}

reports::GateResult unchanged() {
  auto doc = oneRunReport(spec(100 * kMiB, 110 * kMiB));
  return reports::runGate(reports::extractMetrics(doc, "base.json"),
                          reports::extractMetrics(doc, "cur.json"), {});
}

}  // namespace

TEST_CASE("gate table: changed rows only, then findings, runs and the verdict") {
  std::string table = reports::formatGateTable(regressed());
  INFO(table);
  CHECK_THAT(table, Catch::Contains("memfloor gate: cur.json against the baseline base.json"));
  CHECK_THAT(table, Catch::Contains("idle floor"));
  CHECK_THAT(table, Catch::Contains("+2.00 MiB"));
  CHECK_THAT(table, Catch::Contains("REGRESSION"));
  CHECK_THAT(table, Catch::Contains("peak"));  // moved by 1 MiB: shown, within threshold
  CHECK_THAT(table, !Catch::Contains(" w "));  // the unchanged site is not listed
  CHECK_THAT(table, Catch::Contains("new finding abcd: MF001 src/a,b.cpp:53:"));
  CHECK_THAT(table, Catch::Contains("run missing from current: rank 1"));
  CHECK_THAT(table, Catch::Contains("run not in the baseline (not compared): rank 2"));
  CHECK_THAT(table, Catch::EndsWith(
                        "verdict: REGRESSION: 2 of 5 checks over threshold, 1 run missing from "
                        "current, 1 new finding\n"));

  std::string quiet = reports::formatGateTable(unchanged());
  CHECK_THAT(quiet, Catch::Contains("nothing moved (3 checks)"));
  CHECK_THAT(quiet, Catch::EndsWith("verdict: pass: 3 checks within thresholds\n"));
}

TEST_CASE("gate Markdown: verdict, a table of what moved, findings, escaped") {
  std::string md = reports::formatGateMarkdown(regressed());
  INFO(md);
  CHECK_THAT(md, Catch::StartsWith("### memfloor gate: **regression**\n"));
  CHECK_THAT(md, Catch::Contains("| result | metric | run |"));
  CHECK_THAT(md, Catch::Contains("| **regression** | idle floor | rank 0 | 0:device |"));
  CHECK_THAT(md, Catch::Contains("Mgr::keep\\|x (m.cpp:9)"));  // a pipe cannot end the cell
  CHECK_THAT(md, Catch::Contains("- MF001 at src/a,b.cpp:53: keeps 50% of it: all"));
  CHECK_THAT(md, Catch::Contains("run **rank 1** is in the baseline but missing from current"));
  CHECK_THAT(md, Catch::Contains("| idle floor | 1.00 MiB | 1% |"));
  CHECK_THAT(reports::formatGateMarkdown(unchanged()),
             Catch::StartsWith("### memfloor gate: pass\n"));
}

TEST_CASE("gate annotations: GitHub workflow commands, escaped") {
  std::string text = reports::formatGateAnnotations(regressed());
  INFO(text);
  CHECK_THAT(text, Catch::Contains(
                       "::error title=memfloor gate%3A idle floor::idle floor of rank 0 0:device "
                       "rose by +2.00 MiB (100.0 MiB -> 102.0 MiB), more than the 1.00 MiB "
                       "allowed\n"));
  CHECK_THAT(text, Catch::Contains("::error title=memfloor gate%3A missing run::run 'rank 1'"));
  CHECK_THAT(text, Catch::Contains("::warning title=memfloor gate%3A new run::run 'rank 2'"));
  CHECK_THAT(text, Catch::Contains("::error file=src/a%2Cb.cpp,line=53,col=5,title=memfloor "
                                   "MF001 (new finding)::keeps 50%25 of it:%0Aall\n"));
  CHECK(reports::formatGateAnnotations(unchanged()).empty());

  CHECK(reports::escapeAnnotationData("a%b\r\nc:d,e") == "a%25b%0D%0Ac:d,e");
  CHECK(reports::escapeAnnotationProperty("a%b\nc:d,e") == "a%25b%0Ac%3Ad%2Ce");
  // Other control bytes cannot reach the runner's log or the terminal as they are.
  CHECK(reports::escapeAnnotationData("a\x1b[2Jb\x07") == "a\\x1b[2Jb\\x07");
}

TEST_CASE("gate output names a caching allocator's memories reserved and allocated") {
  MemorySpec reserved = spec(22 * kMiB, 22 * kMiB);
  MemorySpec allocated = spec(9 * kMiB, 15 * kMiB);
  allocated.kind = "block";
  MemorySpec grown = allocated;
  grown.idle_floor = 12 * kMiB;
  MemorySpec more_reserved = reserved;
  more_reserved.peak = 40 * kMiB;
  auto base = makeReport({makeRun("rank 0", {reserved, allocated})});
  auto cur = makeReport({makeRun("rank 0", {more_reserved, grown})});
  reports::GateResult r = reports::runGate(reports::extractMetrics(base, "base.json"),
                                           reports::extractMetrics(cur, "cur.json"), {});
  std::string table = reports::formatGateTable(r);
  INFO(table);
  CHECK_THAT(table, Catch::Contains("idle floor    rank 0 0:allocated"));
  CHECK_THAT(table, Catch::Contains("peak          rank 0 0:reserved"));
  CHECK_THAT(table, !Catch::Contains("0:device"));
  CHECK_THAT(table, !Catch::Contains("0:block"));
  std::string md = reports::formatGateMarkdown(r);
  CHECK_THAT(md, Catch::Contains("| **regression** | idle floor | rank 0 | 0:allocated |"));
  CHECK_THAT(md, Catch::Contains("| **regression** | peak | rank 0 | 0:reserved |"));
  CHECK_THAT(reports::formatGateAnnotations(r),
             Catch::Contains("::error title=memfloor gate%3A idle floor::idle floor of rank 0 "
                             "0:allocated rose by +3.00 MiB (9.00 MiB -> 12.0 MiB), more than the "
                             "1.00 MiB allowed\n"));
  // The JSON keeps the report's kind names: what the gate compares by.
  nlohmann::json j = reports::toJson(r);
  std::set<std::string> kinds;
  for (const nlohmann::json& c : j.at("checks")) kinds.insert(c.at("kind").get<std::string>());
  CHECK(kinds == std::set<std::string>{"block", "device"});
}

TEST_CASE("gate JSON: schema memfloor.gate/1") {
  reports::GateResult r = regressed();
  nlohmann::json j = reports::toJson(r);
  CHECK(j.at("schema") == "memfloor.gate/1");
  CHECK(j.at("verdict") == "regression");
  CHECK(j.at("baseline") == "base.json");
  CHECK(j.at("current") == "cur.json");
  CHECK(j.at("thresholds").at("idle_floor").at("bytes") == kMiB);
  CHECK(j.at("thresholds").at("idle_floor").at("percent") == 1.0);
  CHECK(j.at("thresholds").at("fail_on_new_findings") == true);
  REQUIRE(j.at("checks").size() == r.checks.size());
  const nlohmann::json& first = j.at("checks").at(0);
  CHECK(first.at("metric") == "idle_floor");
  CHECK(first.at("run") == "rank 0");
  CHECK(first.at("device") == 0);
  CHECK(first.at("kind") == "device");
  CHECK(first.at("site") == "");
  CHECK(first.at("baseline") == 100 * kMiB);
  CHECK(first.at("current") == 102 * kMiB);
  CHECK(first.at("delta") == 2 * kMiB);
  CHECK(first.at("delta_percent").get<double>() == Approx(2.0));
  CHECK(first.at("allowed") == kMiB);
  CHECK(first.at("regression") == true);
  bool new_site_null_percent = false;
  for (const nlohmann::json& c : j.at("checks")) {
    if (c.at("site") == "Mgr::keep|x (m.cpp:9)")
      new_site_null_percent = c.at("delta_percent").is_null();
  }
  CHECK(new_site_null_percent);
  REQUIRE(j.at("new_findings").size() == 1);
  CHECK(j.at("new_findings")[0].at("id") == "abcd");
  CHECK(j.at("new_findings")[0].at("location").at("line") == 53);
  CHECK(j.at("missing_runs") == nlohmann::json::array({"rank 1"}));
  CHECK(j.at("added_runs") == nlohmann::json::array({"rank 2"}));
  CHECK(j.at("regressions") == 2);
  CHECK(reports::toJson(unchanged()).at("verdict") == "pass");
}

TEST_CASE("gate outputs: a site at the peak, in every form") {
  const reports::GateResult r = peakSiteGrew();
  const std::string table = reports::formatGateTable(r);
  INFO(table);
  CHECK_THAT(table, Catch::Contains("site at peak  rank 0 0:device Loss|node (l.cpp:88)"));
  CHECK_THAT(table, Catch::EndsWith("verdict: REGRESSION: 1 of 4 checks over threshold\n"));
  const std::string md = reports::formatGateMarkdown(r);
  INFO(md);
  CHECK_THAT(md, Catch::Contains("| **regression** | site at peak | rank 0 | 0:device | "
                                 "Loss\\|node (l.cpp:88) | 2.00 MiB | 8.00 MiB | +6.00 MiB "
                                 "(+300.0%) | 4.00 MiB |\n"));
  CHECK_THAT(md, Catch::Contains("| site at peak | 4.00 MiB | 10% |"));
  CHECK_THAT(reports::formatGateAnnotations(r),
             Catch::Contains("::error title=memfloor gate%3A site at peak::site at peak of rank 0 "
                             "0:device at Loss|node (l.cpp:88) rose by +6.00 MiB (2.00 MiB -> "
                             "8.00 MiB), more than the 4.00 MiB allowed\n"));
  const nlohmann::json j = reports::toJson(r);
  CHECK(j.at("thresholds").at("site_peak") ==
        nlohmann::json{{"bytes", 4 * kMiB}, {"percent", 10.0}});
  bool found = false;
  for (const nlohmann::json& c : j.at("checks")) {
    if (c.at("metric") != "site_peak") continue;
    found = true;
    CHECK(c.at("site") == "Loss|node (l.cpp:88)");
    CHECK(c.at("regression") == true);
  }
  CHECK(found);
}
