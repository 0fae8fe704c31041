// Tests of cli/analyze_command: a shipped trace analyzed end to end into a report file.
#include "cli/analyze_command.h"

#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "cli/command.h"

using namespace memfloor;

TEST_CASE("analyze writes a versioned JSON report for the shipped demo trace") {
  auto dir = std::filesystem::temp_directory_path() /
             ("memfloor_analyze_test_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  cli::AnalyzeRequest request;
  request.traces.trace_paths = {std::string(MEMFLOOR_TESTDATA_DIR) + "/demo/retention.mftrace"};
  request.report_path = (dir / "report.json").string();
  request.print_table = false;
  REQUIRE(cli::analyzeTraceFile(request) == cli::kExitOk);

  std::ifstream in(request.report_path);
  auto report = nlohmann::json::parse(in);
  CHECK(report.at("schema") == "memfloor.report/2");
  REQUIRE(report.at("runs").size() == 1);
  CHECK(report.at("runs")[0].at("trace").at("complete") == true);
  CHECK(report.at("findings").at("source").is_null());
  std::filesystem::remove_all(dir);
}
