// Tests of report/views_json: what the report's views say of a run, written beside its fields.
#include "report/views_json.h"

#include <catch2/catch.hpp>
#include <string>

#include "report/iteration_ranges.h"
#include "report/levels.h"
#include "report/report_json.h"
#include "tests/analysis/checked_analysis.h"

namespace memfloor::report::test {
namespace {

using nlohmann::json;

const std::string kAnalysis = std::string(MEMFLOOR_TESTDATA_DIR) + "/analysis/";

TEST_CASE("views: a caching allocator's levels and its headline floor", "[views_json]") {
  const Report run = analysis::test::analyzeFile(kAnalysis + "caching_allocator.txt");
  const json views = runViewsJson(run);
  CHECK(views.at("devices_with_blocks") == json::array({0}));
  CHECK(views.at("reserved_levels") == json::parse(R"([{"device": 0, "kind": "device"}])"));
  const json& steady = views.at("steady_headline");
  REQUIRE(steady.is_object());
  CHECK(steady.at("kind") == "block");
  const SteadyFloor* reserved = steadyFloorOf(run, {0, trace::MemoryKind::kDevice});
  REQUIRE(reserved != nullptr);
  CHECK(steady.at("reserved_idle_floor") == reserved->idle_floor);
  CHECK(views.at("iteration_count") == iterationCount(run));
}

TEST_CASE("views: the censuses in brief: the last window's held and allocated bytes",
          "[views_json]") {
  const Report run = analysis::test::analyzeFile(kAnalysis + "census_holders.txt");
  const json c = runViewsJson(run).at("census_summary");
  REQUIRE(c.at("windows").get<uint32_t>() > 0);
  const IterationRow* last = nullptr;
  for (const IterationRow& row : run.iterations) {
    if (!row.held_by.empty()) last = &row;
  }
  REQUIRE(last != nullptr);
  CHECK(c.at("last_iteration") == last->index);
  CHECK(c.at("taken") == run.census.taken);
  CHECK(c.at("allocated") == last->held_by.at(0).allocated);
  CHECK(c.at("held").get<uint64_t>() <= c.at("allocated").get<uint64_t>());
}

TEST_CASE("views: rows and ranges in the order of their iterations", "[views_json]") {
  const Report run = analysis::test::analyzeFile(kAnalysis + "leak_trend.txt");
  REQUIRE_FALSE(run.iteration_ranges.empty());
  const json entries = runViewsJson(run).at("entries");
  CHECK(entries.size() == run.iterations.size() + run.iteration_ranges.size());
  uint32_t next = 1;  // every iteration once, in order
  for (const json& e : entries) {
    if (e.contains("row")) {
      CHECK(run.iterations.at(e.at("row").get<size_t>()).index == next);
      ++next;
    } else {
      const IterationRange& range = run.iteration_ranges.at(e.at("range").get<size_t>());
      CHECK(range.first == next);
      CHECK(run.iterations.at(e.at("like").get<size_t>()).index == range.like);
      next = range.last + 1;
    }
  }
  CHECK(next - 1 == iterationCount(run));
}

TEST_CASE("views: written into each run of report.json and of a document read back",
          "[views_json]") {
  MergedReport m =
      analysis::test::merge({analysis::test::analyzeFile(kAnalysis + "leak_trend.txt")});
  json doc = toJson(m);
  CHECK(doc.at("runs").at(0).at("iteration_count") == iterationCount(m.runs[0]));
  doc["runs"][0].erase("entries");
  putViews(doc, m);
  CHECK(doc == toJson(m));
}

}  // namespace
}  // namespace memfloor::report::test
