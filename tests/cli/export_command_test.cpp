// memfloor export --perfetto on the shipped model traces: the analysis with every range kept, then
// toChromeTrace; the trace's tracks agree with the report they come from.
#include <algorithm>
#include <catch2/catch.hpp>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "reports/perfetto_export.h"
#include "tests/analysis/checked_analysis.h"

using namespace memfloor;
using nlohmann::json;

TEST_CASE("the Perfetto export of a model trace agrees with its report", "[export]") {
  analysis::AnalysisOptions options;
  options.keep_ranges = true;
  options.timeline_points = 100000;
  const analysis::Report report = analysis::test::analyzeFile(
      std::string(MEMFLOOR_TESTDATA_DIR) + "/model/hc-bug.mftrace", options);
  REQUIRE(!report.iterations.empty());
  REQUIRE(!report.ranges.empty());
  REQUIRE(report.timeline.size() == report.memory.size());

  const json trace = json::parse(reports::dumpChromeTrace(reports::toChromeTrace(report)));
  std::map<std::string, std::pair<uint64_t, uint64_t>> counters;  // name -> max, last
  size_t iterations = 0, markers = 0;
  for (const json& e : trace.at("traceEvents")) {
    if (e.at("ph") == "C") {
      auto& [max, last] = counters[e.at("name")];
      last = e.at("args").at("live_bytes");
      max = std::max(max, last);
    } else if (e.at("ph") == "X" && e.at("cat") == "iteration") {
      CHECK(e.at("name") == report.iterations.at(iterations).name);
      ++iterations;
    } else if ((e.at("ph") == "X" || e.at("ph") == "b") && e.at("cat") == "marker") {
      ++markers;
    }
  }
  CHECK(iterations == report.iterations.size());
  CHECK(markers == report.ranges.size());
  REQUIRE(counters.size() == report.memory.size());
  for (const analysis::MemorySummary& m : report.memory) {
    const std::string name = "GPU " + std::to_string(m.key.device) + " " +
                             std::string(trace::toString(m.key.kind)) + " memory";
    INFO(name);
    REQUIRE(counters.count(name) == 1);
    CHECK(counters.at(name).first == m.peak);  // each bucket shows its max
    CHECK(counters.at(name).second == m.live_at_end);
  }
}
