// Tests of analysis/analyze_traces: trace files and bytes fed to the analysis, directories of
// traces expanded, the runs merged.
#include "analysis/analyze_traces.h"

#include <unistd.h>

#include <atomic>
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "checked_analysis.h"
#include "common/error.h"
#include "invariants.h"
#include "report/report_json.h"
#include "scenarios.h"
#include "tests/scratch_dir.h"
#include "trace/format.h"
#include "trace/source.h"
#include "trace/trace_file.h"

namespace memfloor::analysis::test {
namespace {

namespace fs = std::filesystem;

// A fresh directory, removed with everything in it at the end of the test.
struct TempDir : testing::ScratchDir {
  TempDir() : ScratchDir("analyze_traces_test") {}
  std::string write(const std::string& name, const std::vector<uint8_t>& bytes) const {
    std::ofstream(path / name, std::ios::binary)
        .write(reinterpret_cast<const char*>(bytes.data()),
               static_cast<std::streamsize>(bytes.size()));
    return file(name);
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
  CHECK(report::toJson(from_binary) == report::toJson(from_text));
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
  CHECK_THROWS_WITH(
      expandTracePaths({(dir.path / "empty").string()}),
      Catch::Contains("empty") && Catch::Contains("no trace (.mftrace) and no PyTorch "
                                                  "memory snapshot"));
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

TEST_CASE("analyzeTraces gives the same report with one worker and with four", "[analyze_traces]") {
  TempDir dir;
  static constexpr int32_t kRanks = 6;
  for (int32_t rank = 0; rank < kRanks; ++rank) {
    const uint32_t iterations = 3 + static_cast<uint32_t>(rank % 3);  // of different lengths
    Loop loop = trainingLoop({.iterations = iterations, .retained = (rank + 1) * kMiB});
    // A native frame in the rank's own library, which no file resolves: the run's `symbolized`
    // names that library, and no other rank's.
    const std::string library = "/nonexistent/librank" + std::to_string(rank) + ".so";
    const trace::StackId own = loop.trace.stack(
        {{.function = "", .file = "", .line = 0, .module = library, .offset = 0x1234}});
    loop.trace.alloc(1000 * iterations + 100, 0x60000000, kMiB, {.stack = own});
    trace::ProcessInfo p;
    p.pid = 100 + static_cast<uint32_t>(rank);
    p.rank = rank;
    p.world_size = kRanks;
    loop.trace.record(p);
    // File names in the opposite order of the ranks: the merge orders by rank.
    dir.write("trace" + std::to_string(kRanks - rank) + ".mftrace",
              encodeTrace(loop.trace.records()));
  }
  TraceSet set;
  set.trace_paths = {dir.path.string()};
  set.jobs = 1;
  std::vector<size_t> told;  // one worker: told in order, from this thread
  set.progress = [&told](size_t done, size_t total) {
    CHECK(total == kRanks);
    told.push_back(done);
  };
  const MergedReport serial = analyzeSet(set);
  CHECK(told == std::vector<size_t>{1, 2, 3, 4, 5, 6});
  REQUIRE(serial.runs.size() == kRanks);
  for (int32_t rank = 0; rank < kRanks; ++rank) {
    CHECK(serial.runs[rank].symbolized ==
          std::map<std::string, std::string>{
              {"/nonexistent/librank" + std::to_string(rank) + ".so", ""}});
  }
  const std::string expected = report::toJsonText(serial);
  set.jobs = 4;
  std::atomic<size_t> calls{0};
  set.progress = [&calls](size_t, size_t) { ++calls; };
  for (int round = 0; round < 5; ++round) {  // each round scheduled as it happens to be
    CHECK(report::toJsonText(analyzeSet(set)) == expected);
  }
  CHECK(calls == 5 * kRanks);
}

TEST_CASE("analyzeTraces names the first bad trace in order, whichever worker fails first",
          "[analyze_traces]") {
  TempDir dir;
  const std::vector<uint8_t> good = encodeTrace(trainingLoop({.iterations = 20}).trace.records());
  const std::vector<uint8_t> junk = {'n', 'o', 't', ' ', 'a', ' ', 't', 'r'};
  // Sorted: a (good, slow), b (bad), c (good), d (bad), e (good).
  dir.write("a.mftrace", good);
  const std::string first = dir.write("b.mftrace", junk);
  dir.write("c.mftrace", good);
  const std::string second = dir.write("d.mftrace", junk);
  dir.write("e.mftrace", good);
  TraceSet set;
  set.trace_paths = {dir.path.string()};
  set.symbolize = false;
  for (unsigned jobs : {1u, 4u, 4u, 4u, 4u}) {
    set.jobs = jobs;
    CAPTURE(jobs);
    CHECK_THROWS_AS(analyzeTraces(set), Error);
    CHECK_THROWS_WITH(analyzeTraces(set), Catch::Contains(first) && !Catch::Contains(second));
  }
}

}  // namespace
}  // namespace memfloor::analysis::test

namespace memfloor::analysis::test {
namespace {

TEST_CASE("a job's snapshots, one per rank, merge as its traces do, ranked by their names",
          "[analyze_traces]") {
  const TempDir dir;
  const std::string snapshot =
      std::string(MEMFLOOR_TESTDATA_DIR) + "/snapshots/loop_snapshot.pickle";
  for (const char* name : {"snapshot_rank1.pickle", "snapshot_rank0.pickle"}) {
    std::filesystem::copy_file(snapshot, dir.path / name);
  }
  TraceSet set;
  set.trace_paths = {(dir.path / "snapshot_rank1.pickle").string(),
                     (dir.path / "snapshot_rank0.pickle").string()};
  set.symbolize = false;
  const MergedReport merged = analyzeSet(set);
  REQUIRE(merged.runs.size() == 2);
  CHECK(merged.labels == std::vector<std::string>{"rank 0", "rank 1"});
  CHECK(merged.runs[0].process.rank == 0);
  CHECK(merged.runs[1].process.rank == 1);
}

}  // namespace
}  // namespace memfloor::analysis::test
