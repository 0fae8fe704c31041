// Tests of PyTorch memory snapshots analysed as traces (trace/torch_snapshot_reader.h): a loop's
// snapshot, pickled and as JSON (testdata/snapshots/make_loop_snapshot.py), against the loop's own
// memory_allocated() after each step.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <string>

#include "analysis/analyze_traces.h"
#include "common/error.h"
#include "common/json_input.h"
#include "invariants.h"

namespace memfloor::analysis::test {
namespace {

const std::string kDir = std::string(MEMFLOOR_TESTDATA_DIR) + "/snapshots/";

const IterationMemory& blocksOf(const IterationRow& row) {
  for (const IterationMemory& m : row.memory) {
    if (m.key == MemoryKey{0, trace::MemoryKind::kBlock}) return m;
  }
  FAIL("no block memory in iteration " << row.index);
  return row.memory.front();
}

TEST_CASE("A snapshot's idle floors are the loop's memory_allocated() after each step",
          "[torch_snapshot]") {
  const nlohmann::json log = common::parseJson(
      common::readJsonFile(kDir + "loop_snapshot.log.json", "log"), "loop_snapshot.log.json");
  for (const char* file : {"loop_snapshot.pickle", "loop_snapshot.json"}) {
    INFO(file);
    AnalysisOptions options;
    options.compact_iterations = false;
    const Report report = analyzeTrace(kDir + file, options);
    checkInvariants(report);
    REQUIRE(report.iteration_source == IterationSource::kSteps);
    const auto& steps = log.at("steps");
    // The steps of the log, and the next one, which the dump cut.
    REQUIRE(report.iterations.size() == steps.size() + 1);
    CHECK_FALSE(report.iterations.back().complete);
    for (size_t i = 0; i < steps.size(); ++i) {
      INFO("step " << i + 1);
      CHECK(blocksOf(report.iterations[i]).idle.floor ==
            steps[i].at("memory_allocated").get<uint64_t>());
    }
    // The ring dropped the weights' and the first held tensor's allocations: said, and taken
    // from the state and the later free.
    REQUIRE_FALSE(report.anomalies.warnings.empty());
    CHECK_THAT(report.anomalies.warnings.front(),
               Catch::Contains("2 blocks (18874368 bytes) and 2 segments"));
  }
}

TEST_CASE("A snapshot's sites are its frames, and its modules its user_metadata",
          "[torch_snapshot]") {
  AnalysisOptions options;
  const Report report = analyzeTrace(kDir + "loop_snapshot.pickle", options);
  bool module = false, adam = false;
  for (const symbols::Stack& stack : report.stacks) {
    for (const symbols::Frame& frame : stack.frames) {
      module = module || (symbols::isModuleFrame(frame) && frame.function == "Net.encoder");
      adam = adam || frame.file.ends_with("torch/optim/adam.py");
    }
  }
  CHECK(module);
  CHECK(adam);
}

TEST_CASE("A file that is no snapshot is refused with its name and the place", "[torch_snapshot]") {
  CHECK_THROWS_WITH(analyzeTrace(kDir + "loop_snapshot.log.json", {}),
                    Catch::Contains("loop_snapshot.log.json: neither 'segments' nor "
                                    "'device_traces': not a PyTorch memory snapshot"));
}

}  // namespace
}  // namespace memfloor::analysis::test
