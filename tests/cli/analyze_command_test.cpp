// Tests of cli/analyze_command: a shipped trace analyzed end to end into a report file.
#include "cli/analyze_command.h"

#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "cli/command.h"
#include "common/error.h"

using namespace memfloor;

namespace {

// A request that analyzes one shipped trace (a path under testdata/) into report.json in a new
// directory `name` under the temporary directory, without printing the table.
cli::AnalyzeRequest shippedTraceRequest(const std::string& trace, const std::string& name,
                                        std::filesystem::path& dir) {
  dir = std::filesystem::temp_directory_path() / (name + "_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  cli::AnalyzeRequest request;
  request.traces.trace_paths = {std::string(MEMFLOOR_TESTDATA_DIR) + "/" + trace};
  request.report_path = (dir / "report.json").string();
  request.print_table = false;
  return request;
}

}  // namespace

TEST_CASE("analyze writes a versioned JSON report for the shipped demo trace") {
  std::filesystem::path dir;
  cli::AnalyzeRequest request =
      shippedTraceRequest("demo/retention.mftrace", "memfloor_analyze_test", dir);
  REQUIRE(cli::analyzeTraceFile(request) == cli::kExitOk);

  std::ifstream in(request.report_path);
  auto report = nlohmann::json::parse(in);
  CHECK(report.at("schema") == "memfloor.report/3");
  REQUIRE(report.at("runs").size() == 1);
  CHECK(report.at("runs")[0].at("trace").at("complete") == true);
  CHECK(report.at("findings").at("source").is_null());
  std::filesystem::remove_all(dir);
}

TEST_CASE("The site pattern options are repeatable and refuse an empty pattern") {
  CLI::App app;
  symbols::SitePatterns patterns;
  cli::addSitePatternOptions(app, patterns);
  app.parse("--site-exclude alloc.cpp --site-include '*/mylib/*' --site-exclude '*/venv/*'", false);
  CHECK(patterns.include == std::vector<std::string>{"*/mylib/*"});
  CHECK(patterns.exclude == std::vector<std::string>{"alloc.cpp", "*/venv/*"});

  CLI::App refusing;
  symbols::SitePatterns unused;
  cli::addSitePatternOptions(refusing, unused);
  const char* argv[] = {"memfloor", "--site-include", ""};  // as a shell passes ''
  CHECK_THROWS_WITH(refusing.parse(3, argv),
                    Catch::Contains("--site-include") && Catch::Contains("empty pattern"));
}

TEST_CASE("analyze names sites by the frames the site patterns leave to the user") {
  std::filesystem::path dir;
  cli::AnalyzeRequest request =
      shippedTraceRequest("model/hc-bug.mftrace", "memfloor_analyze_sites_test", dir);
  request.traces.symbolize = false;  // symbolized when it was recorded
  auto wheres = [&request] {
    REQUIRE(cli::analyzeTraceFile(request) == cli::kExitOk);
    std::ifstream in(request.report_path);
    auto report = nlohmann::json::parse(in);
    std::set<std::string> out;
    for (const auto& iteration : report.at("runs").at(0).at("iterations")) {
      for (const auto& site : iteration.at("top_sites")) out.insert(site.at("where"));
    }
    return out;
  };
  // The model's ops name its sites; excluded, their callers in the layer do.
  CHECK(wheres().count("reference_model/ops_hyper_connection.cpp:189 in refmodel::hcUpdate") == 1);
  request.traces.options.site_patterns.exclude = {"ops_hyper_connection.cpp"};
  std::set<std::string> moved = wheres();
  CHECK(moved.count("reference_model/ops_hyper_connection.cpp:189 in refmodel::hcUpdate") == 0);
  CHECK(moved.count("reference_model/hyper_connection_layer.cpp:40 in "
                    "refmodel::HyperConnectionTransformerLayer::forward") == 1);
  request.traces.options.site_patterns.exclude = {""};
  CHECK_THROWS_AS(cli::analyzeTraceFile(request), Error);
  std::filesystem::remove_all(dir);
}
