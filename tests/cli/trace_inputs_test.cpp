// Tests of cli/trace_inputs: a directory of PyTorch memory snapshots read as one of traces, and
// memfloor's own documents named where a trace belongs answered with the command that reads them.
#include "cli/trace_inputs.h"

#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "analysis/analyze_traces.h"
#include "cli/analyze_command.h"
#include "cli/command.h"
#include "common/error.h"
#include "tests/scratch_dir.h"

using namespace memfloor;
using Catch::Matchers::Contains;
using Catch::Matchers::StartsWith;

namespace {

namespace fs = std::filesystem;

const std::string kTestdata = MEMFLOOR_TESTDATA_DIR;
const std::string kSnapshot = kTestdata + "/snapshots/loop_snapshot.pickle";
const std::string kReport = kTestdata + "/reports/held_by.report.json";

struct TempDir : testing::ScratchDir {
  TempDir() : ScratchDir("trace_inputs") {}
};

void writeText(const std::string& path, const std::string& text) { std::ofstream(path) << text; }

// The message analyzing `paths` throws; "" when it does not throw.
std::string analyzeError(const std::vector<std::string>& paths) {
  cli::AnalyzeRequest request;
  request.traces.trace_paths = paths;
  request.traces.symbolize = false;
  request.print_table = false;
  try {
    cli::analyzeTraceFile(request);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("A directory without traces is read as its snapshots, recognised by content") {
  const TempDir dir;
  fs::copy_file(kSnapshot, dir.file("rank1.pickle"));
  fs::copy_file(kSnapshot, dir.file("snapshot_rank_0"));  // no extension: a pickle all the same
  writeText(dir.file("notes.txt"), "the run's notes\n");
  writeText(dir.file("report.json"), "{}\n");
  fs::create_directories(dir.path / "sub");

  CHECK(analysis::expandTracePaths({dir.path.string(), kReport}) ==
        std::vector<std::string>{dir.file("rank1.pickle"), dir.file("snapshot_rank_0"), kReport});

  cli::AnalyzeRequest request;
  request.traces.trace_paths = {dir.path.string()};
  request.traces.symbolize = false;
  request.report_path = dir.file("out.json");
  request.print_table = false;
  REQUIRE(cli::analyzeTraceFile(request) == cli::kExitOk);
  std::ifstream in(request.report_path);
  CHECK(nlohmann::json::parse(in).at("runs").size() == 2);
}

TEST_CASE("A directory of traces gives its .mftrace files only") {
  const TempDir dir;
  writeText(dir.file("a.mftrace"), "");
  fs::copy_file(kSnapshot, dir.file("rank0.pickle"));
  CHECK(analysis::expandTracePaths({dir.path.string()}) ==
        std::vector<std::string>{dir.file("a.mftrace")});
}

TEST_CASE("A directory with neither traces nor snapshots is an error naming it") {
  const TempDir dir;
  writeText(dir.file("notes.txt"), "the run's notes\n");
  CHECK_THROWS_WITH(analysis::expandTracePaths({dir.path.string()}),
                    StartsWith(dir.path.string() + ": no trace (.mftrace) and no PyTorch memory "
                                                   "snapshot"));
}

TEST_CASE("memfloor's documents are named by their schema, with the command that reads them") {
  CHECK_THAT(cli::memfloorDocumentMessage(kReport),
             StartsWith(kReport + ": a memfloor report (memfloor.report/2), not a trace") &&
                 Contains("`memfloor report " + kReport + " -o report.html`") &&
                 Contains("`memfloor gate --baseline BASELINE " + kReport + "`"));
  const std::string findings = kTestdata + "/reports/ranges.findings.json";
  CHECK_THAT(cli::memfloorDocumentMessage(findings),
             Contains("memfloor-check findings (memfloor.findings/1)") &&
                 Contains("--findings " + findings));
  const std::string gate = kTestdata + "/reports/two_runs.gate.json";
  CHECK_THAT(cli::memfloorDocumentMessage(gate),
             Contains("a memfloor gate result (memfloor.gate/1)") && Contains("--gate " + gate));

  CHECK(cli::memfloorDocumentMessage(kTestdata + "/snapshots/loop_snapshot.json").empty());
  CHECK(cli::memfloorDocumentMessage(kSnapshot).empty());  // a pickle: not JSON
  const TempDir dir;
  writeText(dir.file("other.json"), R"({"schema": "acme.report/1"})");
  CHECK(cli::memfloorDocumentMessage(dir.file("other.json")).empty());
}

TEST_CASE("analyze given a report says it is one, and how to read it") {
  CHECK_THAT(analyzeError({kReport}), StartsWith(kReport + ": a memfloor report"));
  // Named without .json, it is no longer read as a snapshot; it is still recognised.
  const TempDir dir;
  fs::copy_file(kReport, dir.file("report"));
  CHECK_THAT(analyzeError({dir.file("report")}),
             StartsWith(dir.file("report") + ": a memfloor report"));
  // Another JSON document keeps the snapshot reader's message.
  CHECK_THAT(analyzeError({kTestdata + "/snapshots/loop_snapshot.log.json"}),
             Contains("not a PyTorch memory snapshot"));
}
