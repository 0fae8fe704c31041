// Tests of PyTorch memory snapshots analysed as traces (trace/torch_snapshot_reader.h): a loop's
// snapshot, pickled and as JSON (testdata/snapshots/make_loop_snapshot.py), against the loop's own
// memory_allocated() after each step.
#include <catch2/catch.hpp>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "analysis/analyze_traces.h"
#include "common/error.h"
#include "common/json_input.h"
#include "invariants.h"
#include "trace/source.h"
#include "trace/torch_snapshot.h"

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

TEST_CASE("Each input that once crashed the snapshot's reading is analysed or refused",
          "[torch_snapshot]") {
  for (const auto& entry : std::filesystem::directory_iterator(kDir + "regressions")) {
    INFO(entry.path().string());
    try {
      checkInvariants(analyzeTrace(entry.path().string(), {}));
    } catch (const Error&) {  // refused with a message: as good an answer
    }
  }
}

TEST_CASE("Hostile snapshots are refused with the place and the reason, or read as they are",
          "[torch_snapshot]") {
  // testdata/snapshots/make_hostile_snapshots.py: shared values, numbers past their fields, texts
  // and stacks past any program's, PyTorch's "snapshot" entries, a lone surrogate in JSON.
  const std::string dir = kDir + "hostile/";
  const nlohmann::json expected =
      common::parseJson(common::readJsonFile(dir + "expected.json", "expected"), "expected.json");
  REQUIRE(expected.size() >= 13);
  for (const auto& [file, says] : expected.items()) {
    INFO(file);
    const std::string message = says.get<std::string>();
    if (message.empty()) {
      const Report report = analyzeTrace(dir + file, {});
      checkInvariants(report);
      // Its time is the history's first allocation's: a "snapshot" entry with no time (at 0)
      // once started the trace in 1970.
      if (file == "snapshot_entries.pickle") {
        CHECK(report.process.start_unix_ns == 1'700'000'000'000'000'000u);
      }
    } else {
      CHECK_THROWS_WITH(analyzeTrace(dir + file, {}),
                        Catch::Contains(file) && Catch::Contains(message));
    }
  }
}

TEST_CASE("A device the state names but no trace has is read", "[torch_snapshot]") {
  trace::TorchSnapshot s;
  s.device_traces.resize(1);
  s.segments.push_back({4'000'000'000u, 0x1000, 2 << 20, 0, false, 0, {}});
  trace::SnapshotBlock& block = s.segments.back().blocks.emplace_back();
  block.address = 0x1000;
  block.size = 4096;
  block.state = trace::SnapshotBlockState::kAllocated;
  const std::vector<uint8_t> bytes = trace::encodeTorchSnapshot(s, "state.pickle");
  const Report report = analyzeTrace(trace::MemorySource(bytes, "state.pickle"), {});
  checkInvariants(report);
  uint64_t blocks = 0;
  for (const MemorySummary& m : report.memory) {
    if (m.key == MemoryKey{4'000'000'000u, trace::MemoryKind::kBlock}) blocks = m.peak;
  }
  CHECK(blocks == 4096);
}

TEST_CASE("A file that is no snapshot is refused with its name and the place", "[torch_snapshot]") {
  CHECK_THROWS_WITH(analyzeTrace(kDir + "loop_snapshot.log.json", {}),
                    Catch::Contains("loop_snapshot.log.json: neither 'segments' nor "
                                    "'device_traces': not a PyTorch memory snapshot"));
}

}  // namespace
}  // namespace memfloor::analysis::test
