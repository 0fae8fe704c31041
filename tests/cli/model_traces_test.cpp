// The CPU-side twin of the GPU runs: traces of the reference model recorded on an H200 under
// `memfloor run`, analyzed here and compared with the model's own live-bytes counter, which it
// printed next to each trace (testdata/model/*.model.txt).
#include <catch2/catch.hpp>
#include <cstdlib>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "report/report_json.h"
#include "tests/analysis/checked_analysis.h"

using namespace memfloor;
using nlohmann::json;

namespace {

const std::string kModelDir = std::string(MEMFLOOR_TESTDATA_DIR) + "/model/";

json analyze(const std::string& name) {
  return report::toJson(analysis::test::analyzeFile(kModelDir + name + ".mftrace"));
}

// "iteration N key value key value ..." lines of the model's output: iteration -> key -> value.
std::map<int, std::map<std::string, double>> modelCounters(const std::string& name) {
  std::ifstream in(kModelDir + name + ".model.txt");
  REQUIRE(in);
  std::map<int, std::map<std::string, double>> rows;
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream words(line);
    std::string key;
    int iteration = 0;
    if (!(words >> key >> iteration) || key != "iteration") continue;
    std::string field;
    double value = 0;
    while (words >> field >> value) rows[iteration][field] = value;
  }
  return rows;
}

// The device row of an iteration.
const json& deviceRow(const json& iteration) {
  for (const json& m : iteration.at("memory")) {
    if (m.at("kind") == "device") return m;
  }
  FAIL("no device memory in iteration " << iteration.at("index"));
  throw;
}

}  // namespace

TEST_CASE("the hyper-connection bug's idle-window retention matches the model's own counter") {
  json fixed = analyze("fixed");
  json bug = analyze("hc-bug");
  auto counters = modelCounters("hc-bug");
  REQUIRE(fixed.at("trace").at("complete") == true);
  REQUIRE(bug.at("iterations").size() == counters.size());

  // Every idle window but the last (which runs to the process's exit, where all is freed).
  for (size_t i = 0; i + 1 < bug.at("iterations").size(); ++i) {
    INFO("idle window after iteration " << i + 1);
    const json& bug_row = deviceRow(bug.at("iterations")[i]);
    const json& fixed_row = deviceRow(fixed.at("iterations")[i]);
    auto model_retained =
        static_cast<uint64_t>(counters.at(static_cast<int>(i) + 1).at("retained_bytes"));
    CHECK(model_retained > 0);
    CHECK(bug_row.at("idle").at("retained").at("inter_iteration").at("bytes") == model_retained);
    CHECK(fixed_row.at("idle").at("retained").at("inter_iteration").at("bytes") == 0);
    CHECK(bug_row.at("idle").at("floor").get<uint64_t>() -
              fixed_row.at("idle").at("floor").get<uint64_t>() ==
          model_retained);
  }
  CHECK(bug.at("trend").at("verdict") == "stable");  // inflated, not growing
}

TEST_CASE("the loss-node bug leaves the idle window as the fix does") {
  // The loss node's inputs are held through the combined backward only: by the idle window they
  // are gone, so the floors equal the fixed run's.
  json fixed = analyze("fixed");
  json bug = analyze("combined-loss-bug");
  for (size_t i = 0; i + 1 < bug.at("iterations").size(); ++i) {
    CHECK(deviceRow(bug.at("iterations")[i]).at("idle").at("floor") ==
          deviceRow(fixed.at("iterations")[i]).at("idle").at("floor"));
  }
}

namespace {

// The shipped traces (symbolized when they were recorded: no llvm-symbolizer needed here) merged
// with the checker's findings on reference_model/, as `memfloor demo` merges them.
json mergedReport(const std::vector<std::string>& names) {
  analysis::TraceSet request;
  for (const std::string& name : names)
    request.trace_paths.push_back(kModelDir + name + ".mftrace");
  request.findings_path = kModelDir + "findings.json";
  request.source_root = std::string(MEMFLOOR_TESTDATA_DIR) + "/..";
  request.symbolize = false;
  json j = report::toJson(analysis::test::analyzeSet(request));
  // What differs between checkouts and releases: absolute paths and the version.
  j.at("tool").at("version") = "VERSION";
  j.at("findings").at("source") = "testdata/model/findings.json";
  for (json& run : j.at("runs")) {
    json& path = run.at("trace").at("path");
    const std::string name = path.get<std::string>();
    path = "testdata/model/" + name.substr(name.rfind('/') + 1);
  }
  return j;
}

const json& findingAt(const json& report, const std::string& file) {
  for (const json& f : report.at("findings").at("items")) {
    if (f.at("location").at("file") == file) return f;
  }
  FAIL("no finding in " << file);
  throw;
}

}  // namespace

TEST_CASE("the MLP-norm-manager finding explains the hc bug's retained bytes, not the fix's") {
  json report = mergedReport({"hc-bug", "fixed"});
  REQUIRE(report.at("runs").size() == 2);
  REQUIRE(report.at("runs")[0].at("label") == "fixed.mftrace");
  REQUIRE(report.at("runs")[1].at("label") == "hc-bug.mftrace");
  const json& finding = findingAt(report, "reference_model/hyper_connection_layer.cpp");
  CHECK(finding.at("rule") == "MF001");
  REQUIRE(finding.at("snippet").is_object());
  CHECK(finding.at("snippet").at("lines").size() == 7);
  // Every steady window of the bug run, none of the fixed run.
  std::map<int, uint64_t> bug_windows;
  for (const json& e : finding.at("explains")) {
    CHECK(e.at("run") == 1);
    // Consecutive windows retaining the same are one entry.
    for (int i = e.at("iteration").get<int>(); i <= e.at("last_iteration").get<int>(); ++i) {
      bug_windows[i] = e.at("bytes").get<uint64_t>();
    }
  }
  CHECK(bug_windows.size() == 3);
  for (const auto& [iteration, bytes] : bug_windows) CHECK(bytes >= (1u << 20));
  // What it explains is part of what the bug retains, which is what the model counted.
  const json& window = deviceRow(report.at("runs")[1].at("iterations")[1]).at("idle");
  uint64_t counted = window.at("retained").at("inter_iteration").at("bytes").get<uint64_t>() +
                     window.at("retained").at("leak").at("bytes").get<uint64_t>();
  CHECK(window.at("explained").at("bytes").get<uint64_t>() == bug_windows[2]);
  CHECK(window.at("explained").at("bytes").get<uint64_t>() +
            window.at("unexplained").at("bytes").get<uint64_t>() ==
        counted);
  CHECK(report.at("summary").at("worst").at("label") == "hc-bug.mftrace");
}

TEST_CASE("golden: the merged report of the shipped traces", "[golden]") {
  json report = mergedReport({"hc-bug", "fixed"});
  // The downsampled timelines have their own tests; here only their size is pinned, to keep the
  // golden small enough to read.
  for (json& run : report["runs"]) {
    for (json& series : run["timeline"]) series["points"] = series["points"].size();
  }
  std::string path = kModelDir + "merged.expected.json";
  if (std::getenv("MEMFLOOR_UPDATE_GOLDENS") != nullptr) {
    std::ofstream(path) << report.dump(2) << '\n';
  }
  std::ifstream in(path);
  REQUIRE(in);
  json expected = json::parse(in);
  CHECK(report == expected);
  if (report != expected) {
    UNSCOPED_INFO("regenerate with scripts/update-goldens.sh after reading the difference");
  }
}

TEST_CASE("the model allocator's bytes in every idle window equal the model's own counter") {
  // Attributed by stack (the traces are symbolized): what the model's own allocator holds through
  // each idle window is exactly what its counter printed; the rest is cuBLAS's own workspace.
  analysis::AnalysisOptions options;
  options.top_sites = 100000;  // every retaining site
  for (const std::string name : {"fixed", "hc-bug", "combined-loss-bug"}) {
    json report =
        report::toJson(analysis::test::analyzeFile(kModelDir + name + ".mftrace", options));
    auto counters = modelCounters(name);
    std::map<uint64_t, bool> from_model_allocator;
    for (const json& stack : report.at("stacks")) {
      bool mine = false;
      for (const json& frame : stack.at("frames")) {
        mine |= frame.at("function").get<std::string>().find("refmodel::Allocator::allocate") !=
                std::string::npos;
      }
      from_model_allocator[stack.at("id").get<uint64_t>()] = mine;
    }
    size_t compared = 0;
    for (const json& iteration : report.at("iterations")) {
      if (iteration.at("idle").at("final") == true) continue;  // ends in the program's teardown
      uint64_t held = 0;
      for (const json& site : iteration.at("top_sites")) {
        if (from_model_allocator[site.at("stack").get<uint64_t>()]) {
          held += site.at("bytes").get<uint64_t>();
        }
      }
      int index = iteration.at("index").get<int>();
      INFO(name << " idle window after iteration " << index);
      CHECK(held == static_cast<uint64_t>(counters.at(index).at("idle_floor_bytes")));
      ++compared;
    }
    CHECK(compared == 3);
  }
}

TEST_CASE("with the markers ignored, detected iterations keep the marked idle floors") {
  for (const std::string name : {"fixed", "hc-bug", "combined-loss-bug"}) {
    INFO(name);
    const json marked = analyze(name);
    analysis::AnalysisOptions blind;
    blind.iteration_pattern = "no marker is named this";
    const json detected =
        report::toJson(analysis::test::analyzeFile(kModelDir + name + ".mftrace", blind));
    REQUIRE(detected.at("iteration_source") == "detected");
    CHECK(detected.at("detection").at("period_ns") > 0);
    // The model's first iteration is set-up to the detector, its last one ends with the trace:
    // detected iterations 1, 2 are the marked 2, 3.
    const json& d = detected.at("iterations");
    const json& m = marked.at("iterations");
    REQUIRE(d.size() == m.size() - 1);
    for (size_t i = 0; i + 1 < d.size(); ++i) {
      INFO("detected iteration " << i + 1);
      const json& di = deviceRow(d[i]).at("idle");
      const json& mi = deviceRow(m[i + 1]).at("idle");
      CHECK(di.at("floor") == mi.at("floor"));
      CHECK(di.at("retained") == mi.at("retained"));
      // The idle window is the same quiet time, give or take the events at its edges.
      const auto start = d[i].at("idle").at("start_ns").get<int64_t>();
      const auto marked_start = m[i + 1].at("idle").at("start_ns").get<int64_t>();
      CHECK(std::abs(start - marked_start) < 1'000'000);
    }
  }
}
