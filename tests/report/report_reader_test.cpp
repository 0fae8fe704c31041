// Tests of reports/report_reader: writer -> reader -> writer gives the shipped reports back, the
// parts a partial reader (the gate) reads, and errors that name the file and the field.
#include "report/report_reader.h"

#include <catch2/catch.hpp>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "common/error.h"
#include "report/iteration_ranges.h"
#include "report/report_file.h"
#include "report/report_json.h"
#include "tests/analysis/checked_analysis.h"
#include "tests/analysis/invariants.h"
#include "tests/analysis/scenarios.h"
#include "tests/reports/report_doc_builder.h"

namespace memfloor::report::test {
namespace {

using Catch::Matchers::Contains;
using nlohmann::json;

const std::string kDir = std::string(MEMFLOOR_TESTDATA_DIR) + "/";

// Every report shipped in testdata/.
const std::vector<std::string> kShipped = {"gate/fixed.report.json",
                                           "gate/hc-bug.report.json",
                                           "reports/one_run_no_markers.report.json",
                                           "reports/two_runs.report.json",
                                           "reports/held_by.report.json",
                                           "reports/ranges.report.json",
                                           "reports/trend.report.json",
                                           "model/merged.expected.json"};

// Written before idle.unexplained counted only what the iterations left (inter_iteration + leak
// minus explained): these hold retained minus explained there, which the page's test pins. The
// writer derives unexplained from the fields the reader reads, so only it differs.
const std::set<std::string> kEarlierUnexplained = {
    "gate/fixed.report.json", "gate/hc-bug.report.json", "reports/two_runs.report.json"};

// The model's golden keeps only the number of each timeline's points
// (tests/cli/model_traces_test.cpp): as many placeholder points stand in for them while the
// report goes through the reader and the writer, and are counted again after.
const std::string kPointsCounted = "model/merged.expected.json";

void expandPoints(json& doc) {
  for (json& run : doc.at("runs")) {
    for (json& series : run.at("timeline")) {
      const uint64_t n = series.at("points").get<uint64_t>();
      json points = json::array();
      for (uint64_t i = 0; i < n; ++i) points.push_back({i, 0, 0, 0});
      series["points"] = std::move(points);
    }
  }
}

void countPoints(json& doc) {
  for (json& run : doc.at("runs")) {
    for (json& series : run.at("timeline")) series["points"] = series.at("points").size();
  }
}

json shipped(const std::string& name) { return loadReportJson(kDir + name); }

// `doc` as the writer writes it when it lacks fields that earlier versions of memfloor.report/2
// did not write: the reader reads their absence as the writer's null or {}. A /2 document is
// written as /3: no iteration ranges, each explains entry one iteration's.
json withLaterFields(json doc) {
  doc["schema"] = kReportSchema;
  for (json& item : doc.at("findings").at("items")) {
    if (item.contains("explains")) {
      for (json& x : item.at("explains")) {
        if (!x.contains("last_iteration")) x["last_iteration"] = x.at("iteration");
      }
    }
    if (item.contains("holds")) continue;  // derived from the runs' censuses, none in these
    item["holds"] = json::array();
    item["max_held_bytes"] = 0;
  }
  for (json& run : doc.at("runs")) {
    if (!run.contains("iteration_ranges")) run["iteration_ranges"] = json::array();
    if (!run.contains("detection")) run["detection"] = nullptr;
    if (!run.contains("symbolized")) run["symbolized"] = json::object();
    if (!run.at("anomalies").contains("cut_tail")) run["anomalies"]["cut_tail"] = nullptr;
    if (!run.at("anomalies").contains("warnings")) {
      run["anomalies"]["warnings"] = json::array();
      run["anomalies"]["warnings_left_out"] = 0;
    }
    json& records = run.at("trace").at("records");
    if (!records.contains("steps")) records["steps"] = 0;
    if (!run.contains("census")) {
      run["census"] = {{"taken", 0}, {"in_idle_windows", 0}, {"outside", json::array()}};
    }
    for (json& row : run.at("iterations")) {
      if (!row.contains("held_by")) row["held_by"] = json::array();
      for (json& census : row.at("held_by")) {
        if (census.contains("storages")) continue;
        const json none = {{"bytes", 0}, {"count", 0}};
        census["storages"] = {{"found", none}, {"not_matched", none}, {"same_block", none}};
      }
      for (json& memory : row.at("memory")) {
        if (!memory.contains("peak_composition")) memory["peak_composition"] = nullptr;
      }
    }
  }
  return doc;
}

json withoutUnexplained(json doc) {
  for (json& run : doc.at("runs")) {
    for (json& row : run.at("iterations")) {
      for (json& memory : row.at("memory")) memory["idle"].erase("unexplained");
    }
  }
  return doc;
}

// `doc` without what the writer derives from other fields (the reader does not read those).
// Without the report's views of each run (report/views_json.h): written by the writer, never read,
// and absent from the shipped reports written before them.
json withoutViews(json doc) {
  for (json& run : doc.at("runs")) {
    for (const char* key : {"iteration_count", "devices_with_blocks", "reserved_levels", "entries",
                            "steady_headline", "headline_peak", "census_summary"}) {
      run.erase(key);
    }
  }
  return doc;
}

json withoutDerived(json doc) {
  auto tallyTotal = [](json& retained) {
    retained.erase("bytes");
    retained.erase("count");
  };
  doc.at("summary").erase("runs");
  if (doc.at("summary").at("worst").is_object()) {
    doc["summary"]["worst"].erase("label");
    doc["summary"]["worst"].erase("rank");
  }
  for (json& item : doc.at("findings").at("items")) item.erase("max_explained_bytes");
  for (json& run : doc.at("runs")) {
    for (json& row : run.at("iterations")) {
      for (json& memory : row.at("memory")) {
        tallyTotal(memory["idle"]["retained"]);
        if (!memory["peak_composition"].is_object()) continue;
        tallyTotal(memory["peak_composition"]);
        for (json& site : memory["peak_composition"]["sites"]) {
          tallyTotal(site);
          site.erase("class");
        }
      }
      for (json& site : row.at("top_sites")) {
        tallyTotal(site);
        site.erase("class");
      }
    }
    for (json& stack : run.at("stacks")) {
      for (json& frame : stack.at("frames")) frame.erase("text");
    }
  }
  return doc;
}

// The message of the Error that reading `doc` throws.
std::string failure(const json& doc) {
  try {
    readReport(doc, "r.json");
  } catch (const Error& e) {
    return e.what();
  }
  FAIL("no error for the document");
  return "";
}

TEST_CASE("report_reader: writer -> reader -> writer gives each shipped report back") {
  for (const std::string& name : kShipped) {
    DYNAMIC_SECTION(name) {
      json doc = shipped(name);
      if (name == kPointsCounted) expandPoints(doc);
      const report::MergedReport report = readReport(doc, name);
      json expected = withoutViews(withLaterFields(doc));
      json written = toJson(report);
      // The streamed text writer says the same, and its text reads back into the same text.
      const std::string text = toJsonText(report);
      CHECK(json::parse(text) == written);
      CHECK(toJsonText(readReport(json::parse(text), name)) == text);
      written = withoutViews(written);
      if (name == kPointsCounted) {
        countPoints(expected);
        countPoints(written);
      }
      INFO("differences: " << json::diff(expected, written).dump());
      CHECK(withoutDerived(withoutUnexplained(written)) ==
            withoutDerived(withoutUnexplained(expected)));
      if (kEarlierUnexplained.contains(name)) {
        CHECK(withoutUnexplained(written) == withoutUnexplained(expected));
      } else {
        CHECK(written == expected);
      }
    }
  }
}

TEST_CASE("report_reader: a report made by the analysis comes back through the reader") {
  analysis::test::Loop loop =
      analysis::test::trainingLoop({.iterations = 6, .leak = 2 * analysis::test::kMiB});
  trace::ProcessInfo p;
  p.pid = 41;
  p.host = loop.trace.name("node-3");
  p.rank = 1;
  loop.trace.record(p);
  analysis::Report run = analysis::test::analyze(loop.trace, {.warmup_iterations = 1});
  analysis::test::checkInvariants(run);
  const report::MergedReport merged = analysis::mergeRuns({run, run}, std::nullopt);
  const json doc = toJson(merged);

  const report::MergedReport back = readReport(doc, "made.json");
  CHECK(toJson(back) == doc);
  REQUIRE(back.runs.size() == 2);
  CHECK(back.labels == merged.labels);
  CHECK(back.runs[0].iterations.size() == run.iterations.size());
  CHECK(back.runs[0].steady.at(0).idle_floor == run.steady.at(0).idle_floor);
  CHECK(back.runs[0].trends.at(0).slope_bytes_per_iteration ==
        run.trends.at(0).slope_bytes_per_iteration);
  CHECK(back.runs[0].process.rank == 1);
  for (size_t i = 0; i < run.iterations.size(); ++i) {
    const analysis::IterationMemory& m = back.runs[0].iterations[i].memory.at(0);
    REQUIRE(m.peak_composition.has_value());
    CHECK(m.peak_composition == run.iterations[i].memory.at(0).peak_composition);
    CHECK_FALSE(m.peak_composition->sites.empty());
  }
  CHECK(back.verdict == merged.verdict);
  CHECK_FALSE(back.findings);
}

TEST_CASE("report_reader: a peak's modules come back through the reader") {
  analysis::test::Loop loop = analysis::test::trainingLoop({.iterations = 3});
  analysis::Report run = analysis::test::analyze(loop.trace, {});
  REQUIRE(run.iterations.at(0).memory.at(0).peak_composition);
  run.iterations[0].memory[0].peak_composition->modules = {{"Net.h.1", {8192, 1}},
                                                           {"(no module)", {512, 2}}};
  const json doc = toJson(analysis::mergeRuns({run}, std::nullopt));
  CHECK(doc["runs"][0]["iterations"][0]["memory"][0]["peak_composition"]["modules"][0] ==
        json{{"module", "Net.h.1"}, {"bytes", 8192}, {"count", 1}});
  CHECK_FALSE(doc["runs"][0]["iterations"][1]["memory"][0]["peak_composition"].contains("modules"));
  const report::MergedReport back = readReport(doc, "modules.json");
  CHECK(back.runs.at(0).iterations.at(0).memory.at(0).peak_composition->modules ==
        run.iterations[0].memory[0].peak_composition->modules);
  CHECK(toJson(back) == doc);
}

TEST_CASE("report_reader: a report with allocator blocks comes back through the reader") {
  analysis::Report run = analysis::test::analyzeFile(kDir + "analysis/caching_allocator.txt");
  run.anomalies.blocks_outside_segments = 3;  // read back as written
  const json doc = toJson(analysis::test::merge({run}));
  CHECK(doc.at("summary").at("worst").at("kind") == "block");
  const report::MergedReport back = readReport(doc, "blocks.json");
  CHECK(toJson(back) == doc);
  REQUIRE(back.runs.size() == 1);
  CHECK(back.runs[0].anomalies.blocks_outside_segments == 3);
  REQUIRE(back.runs[0].memory.size() == 2);
  CHECK(back.runs[0].memory[1].key.kind == trace::MemoryKind::kBlock);
  REQUIRE(back.worst);
  CHECK(back.worst->key.kind == trace::MemoryKind::kBlock);
}

TEST_CASE("report_reader: a report with holders comes back through the reader") {
  const analysis::Report run = analysis::test::analyzeFile(kDir + "analysis/census_holders.txt");
  const json doc = toJson(analysis::test::merge({run}));
  const report::MergedReport back = readReport(doc, "holders.json");
  CHECK(toJson(back) == doc);
  REQUIRE(back.runs.size() == 1);
  CHECK(back.runs[0].census == run.census);
  CHECK(back.runs[0].census.outside.size() == 2);
  REQUIRE(back.runs[0].iterations.size() == run.iterations.size());
  size_t censuses = 0;
  for (size_t i = 0; i < run.iterations.size(); ++i) {
    CHECK(back.runs[0].iterations[i].held_by == run.iterations[i].held_by);
    censuses += run.iterations[i].held_by.size();
  }
  CHECK(censuses == 4);
}

TEST_CASE("report_reader: findings, what they explain and the sites linked to them") {
  const json doc = shipped("reports/two_runs.report.json");
  const report::MergedReport report = readReport(doc, "two_runs.json");
  REQUIRE(report.findings);
  CHECK(report.findings->path == doc.at("findings").at("source"));
  REQUIRE(report.findings->items.size() == 2);
  const report::LinkedFinding& first = report.findings->items[0];
  const json& item = doc.at("findings").at("items").at(0);
  CHECK(first.fingerprint == item.at("id"));
  CHECK(first.rule == item.at("rule"));
  CHECK(first.line == item.at("location").at("line"));
  CHECK_FALSE(first.raw.contains("id"));  // the writer's additions are not the checker's document
  CHECK_FALSE(first.raw.contains("explains"));
  CHECK(first.raw.at("fingerprint") == item.at("fingerprint"));
  size_t explained = 0;
  for (const analysis::Report& r : report.runs) explained += r.explained.size();
  CHECK(explained ==
        item.at("explains").size() + doc.at("findings").at("items").at(1).at("explains").size());
  CHECK(report::maxExplainedBytes(report, 0) == item.at("max_explained_bytes"));
}

TEST_CASE("report_reader: a reader of some parts reads only those (the gate's view)") {
  testing::MemorySpec device;
  device.idle_floor = 10 << 20;
  device.peak = 20 << 20;
  device.sites = {{"Layer::forward (layer.cpp:10)", 3 << 20}};
  testing::MemorySpec pinned = device;
  pinned.kind = "pinned";
  pinned.sites = {};
  const json doc = testing::makeReport(
      {testing::makeRun("rank 0", {device, pinned})},
      {testing::makeFinding("1111", "MF001", "layer.cpp", 53, "'mgr_' keeps its device memory")});
  const ReportReader reader(doc, "gate.json");
  REQUIRE(reader.runCount() == 1);
  const RunReader run = reader.run(0);
  CHECK(run.label() == "rank 0");

  const std::vector<analysis::MemorySummary> memory = run.memory();
  REQUIRE(memory.size() == 2);
  CHECK(memory[1].key.kind == trace::MemoryKind::kPinned);
  CHECK(memory[0].peak == 20 << 20);

  const std::vector<SteadyWindow> windows = run.steadyWindows();
  REQUIRE(windows.size() == 2);
  CHECK(windows[0].floor.iteration == 3);
  CHECK(windows[0].floor.idle_floor == 10 << 20);
  // The sites of iteration 3 only: the decoy that iteration 1 lists is not read.
  REQUIRE(windows[0].top_sites.size() == 1);
  CHECK(windows[0].top_sites[0].where == "Layer::forward (layer.cpp:10)");
  CHECK(windows[0].top_sites[0].retained.inter_iteration.bytes == 3 << 20);

  CHECK(run.trends().at(0).verdict == analysis::TrendVerdict::kStable);

  const std::vector<report::LinkedFinding> findings = reader.findings();
  REQUIRE(findings.size() == 1);
  CHECK(findings[0].fingerprint == "1111");
  CHECK(findings[0].file == "layer.cpp");
  CHECK(findings[0].line == 53);
  CHECK(findings[0].column == 5);

  // The whole run needs what this one lacks.
  CHECK_THROWS_WITH(run.report(), Contains("gate.json: runs[0].trace.version: missing"));
}

TEST_CASE("report_reader: the largest peak of each memory, with its composition when it has one") {
  testing::MemorySpec device;
  device.peak = 20 << 20;
  device.peak_sites = {{{"Layer::backward (layer.cpp:90)", 12 << 20}}};
  testing::MemorySpec pinned;
  pinned.kind = "pinned";
  pinned.peak = 4 << 20;  // no composition: as a report written before them
  const json doc = testing::makeReport({testing::makeRun("rank 0", {device, pinned})});
  const std::vector<LargestPeak> peaks = ReportReader(doc, "r.json").run(0).largestPeaks();
  REQUIRE(peaks.size() == 2);
  CHECK(peaks[0].key.kind == trace::MemoryKind::kDevice);
  CHECK(peaks[0].iteration == 2);  // the others peak at half of it
  CHECK(peaks[0].peak == 20 << 20);
  REQUIRE(peaks[0].composition.has_value());
  CHECK(peaks[0].composition->at_ns == 2100);
  REQUIRE(peaks[0].composition->sites.size() == 1);
  CHECK(peaks[0].composition->sites[0].where == "Layer::backward (layer.cpp:90)");
  CHECK(peaks[0].composition->sites[0].live.iteration.bytes == 12 << 20);
  CHECK(peaks[1].key.kind == trace::MemoryKind::kPinned);
  CHECK(peaks[1].iteration == 1);  // equal peaks: the first
  CHECK_FALSE(peaks[1].composition.has_value());
}

TEST_CASE("report_reader: a steady window of no iteration lists no sites") {
  json doc = testing::oneRunReport({});
  doc["runs"][0]["steady_idle_floor"][0]["iteration"] = 0;
  doc["runs"][0]["iterations"] = json::array();
  const std::vector<SteadyWindow> windows = ReportReader(doc, "r.json").run(0).steadyWindows();
  REQUIRE(windows.size() == 1);
  CHECK(windows[0].top_sites.empty());

  doc["runs"][0]["steady_idle_floor"][0]["iteration"] = 4;
  CHECK_THROWS_WITH(ReportReader(doc, "r.json").run(0).steadyWindows(),
                    Contains("r.json: runs[0].steady_idle_floor[0].iteration: iteration 4 is not "
                             "in the run's iterations"));
}

TEST_CASE("report_reader: what is malformed is an error naming the file and the field") {
  const json good = shipped("gate/hc-bug.report.json");
  REQUIRE_NOTHROW(readReport(good, "r.json"));
  auto fails = [&](auto change, const std::string& what) {
    json doc = good;
    change(doc);
    CHECK_THAT(failure(doc), Contains("r.json: " + what));
  };
  fails([](json& d) { d["runs"][0].erase("process"); }, "runs[0].process: missing");
  fails([](json& d) { d.erase("summary"); }, "summary: missing");
  fails([](json& d) { d["runs"][0]["memory"][0]["kind"] = "vram"; },
        "runs[0].memory[0].kind: expected one of device, pinned, managed, device_static, pool, "
        "unknown, block, not \"vram\"");
  fails([](json& d) { d["runs"][0]["trace"]["version"]["major"] = 70000; },
        "runs[0].trace.version.major: value out of range");
  fails([](json& d) { d["runs"][0]["memory"][0]["peak"] = -1; },
        "runs[0].memory[0].peak: expected an unsigned integer");
  fails([](json& d) { d["runs"][0]["iterations"][0]["complete"] = 1; },
        "runs[0].iterations[0].complete: expected true or false");
  fails([](json& d) { d["runs"][0]["iterations"][0]["memory"][0]["idle"].erase("retained"); },
        "runs[0].iterations[0].memory[0].idle.retained: missing");
  fails(
      [](json& d) {
        d["runs"][0]["timeline"] = {{{"device", 0},
                                     {"kind", "device"},
                                     {"bucket_ns", 1000},
                                     {"points", {{0, 1, 2, 3}, {1000, 2}}}}};
      },
      "runs[0].timeline[0].points[1]: expected [start_ns, min, max, last]");
  fails([](json& d) { d["runs"][0]["iterations"][0]["memory"][0]["peak_composition"] = 3; },
        "runs[0].iterations[0].memory[0].peak_composition: expected an object");
  fails(
      [](json& d) {
        json& p = d["runs"][0]["iterations"][0]["memory"][0]["peak_composition"];
        p = {{"at_ns", 5}, {"sites", json::array()}};
        for (const char* c : {"iteration", "earlier_iteration", "inter_iteration", "leak"}) {
          p[c] = {{"bytes", 0}, {"count", 0}};
        }
      },
      "runs[0].iterations[0].memory[0].peak_composition.persistent: missing");
  fails(
      [](json& d) {
        json& p = d["runs"][0]["iterations"][0]["memory"][0]["peak_composition"];
        p = {{"at_ns", 5}, {"sites", json::array()}};
        for (const char* c :
             {"iteration", "earlier_iteration", "inter_iteration", "leak", "persistent"}) {
          p[c] = {{"bytes", 0}, {"count", 0}};
        }
        p["modules"] = {{{"module", "Net.h.0"}, {"bytes", -1}, {"count", 1}}};
      },
      "runs[0].iterations[0].memory[0].peak_composition.modules[0].bytes");
  fails([](json& d) { d["runs"][0]["trend"]["per_memory"][0]["slope_bytes_per_iteration"] = 0.5; },
        "runs[0].trend.per_memory[0].slope_bytes_per_iteration: expected an integer");
  fails([](json& d) { d["runs"][0]["process"]["properties"]["x"] = 3; },
        "runs[0].process.properties.x: expected a string");
  fails([](json& d) { d["summary"]["worst"]["run"] = 5; },
        "summary.worst.run: run 5 is not in runs");
  fails([](json& d) { d["runs"][0]["iterations"][0]["top_sites"][0]["findings"] = {"nope"}; },
        "runs[0].iterations[0].top_sites[0].findings[0]: finding \"nope\" is not in "
        "findings.items");
  fails([](json& d) { d["findings"]["source"] = nullptr; },
        "findings.source: null, but findings.items lists findings");
  fails([](json& d) { d["findings"]["items"][0].erase("id"); }, "findings.items[0].id: missing");
  fails([](json& d) { d["runs"] = json::object(); }, "runs: expected an array");
}

TEST_CASE("report_reader: explains naming a run the report does not have are refused") {
  json doc = shipped("reports/two_runs.report.json");
  REQUIRE_FALSE(doc["findings"]["items"][0]["explains"].empty());
  doc["findings"]["items"][0]["explains"][0]["run"] = 9;
  CHECK_THAT(failure(doc),
             Contains("r.json: findings.items[0].explains[0].run: run 9 is not in runs"));
}

TEST_CASE("report_reader: a trend range reads back and expands to every window exactly") {
  const analysis::test::Loop loop = analysis::test::trainingLoop(
      {.iterations = 40, .retained = 0, .leak = 2 * analysis::test::kMiB});
  const analysis::Report run = analysis::test::analyze(loop.trace);
  const analysis::Report whole = analysis::test::analyze(loop.trace, {.compact_iterations = false});
  REQUIRE(run.iteration_ranges.size() == 1);
  REQUIRE_FALSE(run.iteration_ranges[0].step.empty());
  const json doc = toJson(analysis::mergeRuns({run}, std::nullopt));
  const json& step = doc["runs"][0]["iteration_ranges"][0]["step"];
  CHECK(step["memory"][0]["floor"] == 2 * analysis::test::kMiB);
  CHECK(step["memory"][0]["retained"]["bytes"] == 2 * analysis::test::kMiB);  // the total's
  CHECK(step["top_sites"][0]["leak"]["count"] == 1);

  const report::MergedReport back = readReport(doc, "trend.json");
  CHECK(toJson(back) == doc);
  CHECK(back.runs.at(0).iteration_ranges == run.iteration_ranges);
  analysis::test::checkWindowsExpand(back.runs[0], whole);

  // Damaged: a step that cannot be expanded is refused, naming the number.
  auto fails = [&](auto change, const std::string& what) {
    json d = doc;
    change(d["runs"][0]);
    CHECK_THAT(failure(d), Contains("r.json: runs[0].iteration_ranges[0]." + what));
  };
  fails([](json& r) { r["iteration_ranges"][0]["step"]["memory"][0]["floor"] = -(1LL << 40); },
        "step: memory[0].floor: 69206016 from iteration 1 by -1099511627776 per iteration is "
        "negative at iteration 2");
  fails(
      [](json& r) {
        r["iteration_ranges"][0]["step"]["top_sites"][0]["leak"]["bytes"] = int64_t{1} << 62;
      },
      "step: top_sites[0].retained.leak.bytes: 2097152 from iteration 1 by 4611686018427387904 "
      "per iteration is past 2^63-1 at iteration");
  fails([](json& r) { r["iteration_ranges"][0]["step"]["memory"][0]["floor"] = 0.5; },
        "step.memory[0].floor: expected an integer");
  fails([](json& r) { r["iteration_ranges"][0]["step"]["top_sites"].erase(0); },
        "step: top_sites: 1 entries, iteration 1 has 2");
  fails(
      [](json& r) {
        r["iteration_ranges"][0]["step"] = {{"memory", json::array()},
                                            {"top_sites", json::array()}};
      },
      "step: expected a memory or a top site");
  fails([](json& r) { r["iterations"].erase(0); },
        "like: iteration 1 is not kept whole: the step has nothing to start from");
}

// The case at a tenth of its length: a leak each iteration made every window differ, and
// the report grew by about 4 KB per iteration (827 MB for 200,000). Stored as trend ranges, it must
// stay within 5 MB per 200,000 iterations: 500 KB for 20,000, whatever its per-run constant parts.
TEST_CASE("report_reader: twenty thousand leaking iterations make a small report that reads back") {
  constexpr uint32_t kIterations = 20'000;
  const analysis::test::Loop loop =
      analysis::test::trainingLoop({.iterations = kIterations, .retained = 0, .leak = 4096});
  const analysis::Report run = analysis::test::analyze(loop.trace);
  const report::MergedReport merged = analysis::mergeRuns({run}, std::nullopt);
  const std::string text = toJsonText(merged);
  INFO("report bytes: " << text.size() << ", rows kept " << run.iterations.size() << ", ranges "
                        << run.iteration_ranges.size());
  CHECK(text.size() <= 500'000);
  const report::MergedReport back = readReport(json::parse(text), "long.json");
  analysis::test::checkWindowsExpand(
      back.runs.at(0), analysis::test::analyze(loop.trace, {.compact_iterations = false}));
}

}  // namespace
}  // namespace memfloor::report::test
