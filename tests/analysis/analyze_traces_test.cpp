// Tests of analysis/analyze_traces: trace files and bytes fed to the analysis, directories of
// traces expanded, the runs merged.
#include "analysis/analyze_traces.h"

#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "checked_analysis.h"
#include "common/error.h"
#include "invariants.h"
#include "reports/report_json.h"
#include "scenarios.h"
#include "trace/format.h"
#include "trace/source.h"
#include "trace/trace_file.h"

namespace memfloor::analysis::test {
namespace {

namespace fs = std::filesystem;

// A fresh directory, removed with everything in it at the end of the test.
struct TempDir {
  fs::path path =
      fs::temp_directory_path() / ("memfloor_analyze_traces_test_" + std::to_string(::getpid()));
  TempDir() {
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~TempDir() { fs::remove_all(path); }
  std::string write(const std::string& name, const std::vector<uint8_t>& bytes) const {
    std::ofstream(path / name, std::ios::binary)
        .write(reinterpret_cast<const char*>(bytes.data()),
               static_cast<std::streamsize>(bytes.size()));
    return (path / name).string();
  }
};

TEST_CASE("replayTrace reads every record and says what the reader knows", "[analyze_traces]") {
  const Loop loop = trainingLoop({.iterations = 3});
  const std::vector<uint8_t> cut = encodeTrace(loop.trace.records(), false);
  const trace::MemorySource source(cut, "cut.mftrace");
  Analysis analysis({});
  const TraceInput input = replayTrace(source, analysis);
  CHECK(input.path == "cut.mftrace");
  CHECK(input.major == trace::kMajorVersion);
  CHECK(input.minor == trace::kMinorVersion);
  CHECK_FALSE(input.complete);
  CHECK_THAT(input.ending, Catch::StartsWith("truncated"));
  const Report r = analysis.finish(input);
  checkInvariants(r);
  CHECK(r.records.total == loop.trace.records().size());
  CHECK(r.iterations.size() == 3);
}

TEST_CASE("A text trace and its binary form give the same report", "[analyze_traces]") {
  const std::string text =
      std::string(MEMFLOOR_TESTDATA_DIR) + "/analysis/seed_inter_iteration.txt";
  std::ifstream in(text);
  REQUIRE(in);
  TempDir dir;
  const std::string binary = dir.write("seed.mftrace", trace::encodeTextTrace(in, text));
  const Report from_text = analyzeFile(text);
  Report from_binary = analyzeFile(binary);
  CHECK(from_binary.input.path == binary);
  from_binary.input.path = text;
  CHECK(reports::toJson(from_binary) == reports::toJson(from_text));
  CHECK(from_text.iterations.size() == 4);
}

TEST_CASE("A trace file that cannot be read is refused with its path", "[analyze_traces]") {
  CHECK_THROWS_WITH(analyzeTrace(std::string("/nonexistent/run.mftrace"), {}),
                    Catch::Contains("/nonexistent/run.mftrace"));
  TempDir dir;
  const std::string junk = dir.write("junk.mftrace", {'n', 'o', 't', ' ', 'a', ' ', 't', 'r'});
  CHECK_THROWS_AS(analyzeTrace(junk, {}), Error);
}

TEST_CASE("expandTracePaths lists a directory's traces, sorted; files pass as given",
          "[analyze_traces]") {
  TempDir dir;
  const std::vector<uint8_t> bytes = encodeTrace(trainingLoop().trace.records());
  const std::string b = dir.write("b.mftrace", bytes);
  const std::string a = dir.write("a.mftrace", bytes);
  dir.write("notes.txt", {'x'});
  CHECK(expandTracePaths({dir.path.string(), "x.txt"}) == std::vector<std::string>{a, b, "x.txt"});
  fs::create_directories(dir.path / "empty");
  CHECK_THROWS_WITH(expandTracePaths({(dir.path / "empty").string()}),
                    Catch::Contains("empty") && Catch::Contains("no .mftrace file"));
}

TEST_CASE("analyzeTraces merges the traces of a directory, by rank", "[analyze_traces]") {
  TempDir dir;
  for (int32_t rank : {1, 0}) {
    Loop loop = trainingLoop({.iterations = 3, .retained = (rank + 1) * kMiB});
    trace::ProcessInfo p;
    p.pid = 100 + static_cast<uint32_t>(rank);
    p.rank = rank;
    p.world_size = 2;
    loop.trace.record(p);
    dir.write("rank" + std::to_string(1 - rank) + ".mftrace", encodeTrace(loop.trace.records()));
  }
  TraceSet set;
  set.trace_paths = {dir.path.string()};
  set.symbolize = false;
  const MergedReport m = analyzeSet(set);
  REQUIRE(m.runs.size() == 2);
  CHECK(m.labels == std::vector<std::string>{"rank 0", "rank 1"});
  CHECK(m.runs[0].process.rank == 0);
  REQUIRE(m.worst);
  CHECK(m.worst->run == 1);  // rank 1 keeps 2 MiB a window, rank 0 one
  CHECK_FALSE(m.findings);
}

}  // namespace
}  // namespace memfloor::analysis::test
