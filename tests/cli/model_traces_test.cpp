// The CPU-side twin of the GPU runs: traces of the reference model recorded on an H200 under
// `memfloor run`, analyzed here and compared with the model's own live-bytes counter, which it
// printed next to each trace (testdata/model/*.model.txt).
#include <catch2/catch.hpp>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "cli/analyze_command.h"
#include "reports/report_json.h"

using namespace memfloor;
using nlohmann::json;

namespace {

const std::string kModelDir = std::string(MEMFLOOR_TESTDATA_DIR) + "/model/";

json analyze(const std::string& name) {
  return reports::toJson(cli::analyzeTrace(kModelDir + name + ".mftrace", {}));
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
    auto model_retained = static_cast<uint64_t>(counters.at(static_cast<int>(i) + 1)
                                                    .at("retained_bytes"));
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
