// Golden tests: each testdata/analysis/NAME.txt replayed as `memfloor analyze` replays it, compared
// with NAME.expected.json. Regenerate the expectations only with scripts/update-goldens.sh.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "common/units.h"
#include "report/report_json.h"
#include "tests/analysis/checked_analysis.h"
#include "trace/trace_file.h"
#include "trace/writer.h"

namespace memfloor::reports::test {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

const fs::path kDir = fs::path(MEMFLOOR_TESTDATA_DIR) / "analysis";

// Encodes the text into a binary trace with small chunks (so that records out of time order end
// up in different chunks, as CUPTI buffers do), then analyses it as `memfloor analyze` does.
analysis::Report replay(const fs::path& fixture, uint32_t chunk_bytes) {
  std::string name = "testdata/analysis/" + fixture.filename().string();
  std::ifstream in(fixture);
  REQUIRE(in);
  return analysis::test::analyzeBytes(trace::encodeTextTrace(in, name, chunk_bytes), name);
}

// The tool version changes with every release; the goldens must not. A run's document names no
// tool (report.json does, once for all runs), so there is usually nothing to replace.
json normalized(const analysis::Report& report) {
  json j = toJson(report);
  if (j.contains("tool")) j.at("tool").at("version") = "VERSION";
  return j;
}

std::vector<fs::path> fixtures() {
  std::vector<fs::path> out;
  for (const fs::directory_entry& e : fs::directory_iterator(kDir)) {
    if (e.path().extension() == ".txt") out.push_back(e.path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

TEST_CASE("Golden reports of the analysis fixtures", "[golden]") {
  bool update = std::getenv("MEMFLOOR_UPDATE_GOLDENS") != nullptr;
  std::vector<fs::path> all = fixtures();
  REQUIRE(all.size() >= 5);
  for (const fs::path& fixture : all) {
    INFO(fixture.filename().string());
    json actual = normalized(replay(fixture, 64));
    // The chunking must not matter (one chunk, time order within it, or many), but for where a
    // truncated file stops.
    json one_chunk = normalized(replay(fixture, trace::Writer::kDefaultChunkBytes));
    one_chunk["trace"]["ending"] = actual["trace"]["ending"];
    CHECK(one_chunk == actual);

    fs::path golden = fixture;
    golden.replace_extension(".expected.json");
    if (update) {
      std::ofstream(golden) << actual.dump(2) << '\n';
      continue;
    }
    std::ifstream in(golden);
    INFO("missing " << golden << ": run scripts/update-goldens.sh");
    REQUIRE(in);
    json expected = json::parse(in);
    INFO("differences (JSON patch from expected to actual):\n"
         << json::diff(expected, actual).dump(2));
    CHECK(expected == actual);
  }
}

TEST_CASE("Records out of time order pair correctly", "[golden]") {
  analysis::Report r = replay(kDir / "out_of_order.txt", 64);
  CHECK(r.anomalies.unmatched_frees.count == 0);
  CHECK(r.anomalies.double_allocations.count == 0);
  CHECK(r.anomalies.out_of_order_records == 0);
  REQUIRE(r.iterations.size() == 2);
  CHECK(r.iterations[0].memory[0].idle.floor == 1048576 + 2048);
  CHECK(r.iterations[0].memory[0].idle.retained.inter_iteration == analysis::Tally{2048, 1});
  CHECK(r.memory[0].live_at_end == 1048576);
}

TEST_CASE("A trace cut off inside an iteration still reports it", "[golden]") {
  analysis::Report r = replay(kDir / "threads_devices_truncated.txt", 64);
  CHECK_FALSE(r.input.complete);
  REQUIRE(r.iterations.size() == 3);
  CHECK_FALSE(r.iterations[2].complete);
  CHECK(r.iterations[1].name == "train_step 2");
  CHECK(r.anomalies.unmatched_frees.count == 1);
  CHECK(r.anomalies.double_allocations.count == 1);
  CHECK(r.process.rank == 5);
  CHECK(r.dropped_cupti == 2);
}

TEST_CASE("Another domain's ranges interleave with the iteration ranges", "[golden]") {
  analysis::Report r = replay(kDir / "nccl_domain_ranges.txt", 64);
  CHECK(r.iteration_source == analysis::IterationSource::kMarkers);
  REQUIRE(r.iterations.size() == 4);
  for (const analysis::IterationRow& row : r.iterations) {
    INFO(row.index);
    CHECK(row.end_ns - row.start_ns == 1000);
    CHECK(row.complete);
    CHECK(row.memory[0].idle.floor == 64 * units::kMiB);
  }
  CHECK(r.iterations[3].name == "iteration 4");  // started, and ended, in the default domain
  CHECK(r.anomalies.unclosed_ranges == 1);       // NCCL's, never popped
  CHECK(r.anomalies.unmatched_range_ends == 0);
  CHECK(r.anomalies.warnings.empty());
}

TEST_CASE("A loop without markers is cut at its training steps", "[golden]") {
  analysis::Report r = replay(kDir / "steps_holder.txt", 64);
  CHECK(r.iteration_source == analysis::IterationSource::kSteps);
  CHECK_FALSE(r.detection.has_value());
  CHECK(r.records.steps == 6);
  REQUIRE(r.iterations.size() == 3);
  CHECK(r.iterations[1].name == "step 2");
  CHECK(r.iterations[1].start_ns == 3000);
  CHECK(r.iterations[1].end_ns == 4000);
  CHECK(r.iterations[1].idle_end_ns == 5000);
  for (size_t i = 0; i + 1 < r.iterations.size(); ++i) {
    INFO(i);
    const auto& idle = r.iterations[i].memory[0].idle;
    CHECK(idle.floor == 80 * units::kMiB);
    CHECK(idle.retained.persistent.bytes == 64 * units::kMiB);
    CHECK(idle.retained.inter_iteration.bytes == 16 * units::kMiB);
  }
  REQUIRE(r.iterations[1].held_by.size() == 1);
  const analysis::HeldBy& held = r.iterations[1].held_by[0];
  CHECK(held.step == 2);
  REQUIRE(held.holders.size() == 2);
  // What the window does not need comes first: the output kept from one step into the next.
  CHECK(held.holders[0].path == "train.py:<module>.model.last");
  CHECK(held.holders[0].bytes == 16 * units::kMiB);
  CHECK(held.holders[0].cls == analysis::RetentionClass::kInterIteration);
  CHECK(held.holders[1].path == "train.py:<module>.model.weight");
  CHECK(held.holders[1].cls == analysis::RetentionClass::kPersistent);
  CHECK(r.anomalies.warnings.empty());
}

TEST_CASE("Damaged step records are warnings that name them", "[golden]") {
  analysis::Report r = replay(kDir / "steps_out_of_order.txt", 64);
  CHECK(r.iteration_source == analysis::IterationSource::kSteps);
  REQUIRE(r.iterations.size() == 2);
  CHECK(r.iterations[0].start_ns == 1000);
  CHECK(r.iterations[0].end_ns == 4000);
  CHECK(r.iterations[1].start_ns == 5000);
  const std::vector<std::string>& w = r.anomalies.warnings;
  REQUIRE(w.size() == 6);
  CHECK(w[0] == "step end t=500 step=1: no step is open; ignored");
  CHECK(w[1] ==
        "marker pop t=600 thread=1: no range of its thread is open in the default domain; "
        "ignored");
  CHECK(w[2] == "step end t=1500 step=7: out of order, step 1 is open; ignored");
  CHECK(w[3] ==
        "step begin t=3000 step=2: step 1 has not ended (its end record is missing); both are one "
        "iteration");
  CHECK(w[4] ==
        "census t=4500 dev=0 step=0: no step record of that number came before it; it is placed "
        "by its time alone");
  CHECK(w[5] == "step begin t=5000 step=2: out of order, after step 2; taken as it comes");
}

// A real run (testdata/analysis/trainer_steps.txt's header says what and how): transformers'
// Trainer, no marker, each window's allocated floor against the program's own count.
TEST_CASE("transformers' Trainer is cut at its training steps, floors as the program counts",
          "[golden]") {
  analysis::Report r = replay(kDir / "trainer_steps.txt", trace::Writer::kDefaultChunkBytes);
  CHECK(r.iteration_source == analysis::IterationSource::kSteps);
  CHECK(r.anomalies.warnings.empty());
  REQUIRE(r.iterations.size() == 8);
  constexpr uint64_t kOwnCount = 247240704;  // memory_allocated() in on_step_end, every step
  for (const analysis::IterationRow& row : r.iterations) {
    INFO(row.index);
    CHECK(row.name == "step " + std::to_string(row.index));
    CHECK(row.complete);
    if (row.idle_final) continue;  // it ends with the process
    for (const analysis::IterationMemory& m : row.memory) {
      if (m.key.kind == trace::MemoryKind::kBlock) CHECK(m.idle.floor == kOwnCount);
    }
  }
  CHECK(r.census.taken == 2);
  CHECK(r.census.in_idle_windows == 2);
  for (uint32_t window : {2u, 4u}) {
    INFO(window);
    REQUIRE(r.iterations[window - 1].held_by.size() == 1);
    const analysis::HeldBy& held = r.iterations[window - 1].held_by[0];
    CHECK(held.held.bytes <= held.allocated);
    const auto logits = std::find_if(
        held.holders.begin(), held.holders.end(),
        [](const analysis::Holder& h) { return h.path.ends_with(".trainer.last_logits"); });
    REQUIRE(logits != held.holders.end());
    CHECK(logits->bytes == 52428800);  // what the program freed when it dropped them
    CHECK(logits->cls == analysis::RetentionClass::kInterIteration);
    // Made in the library's layer, on the user's line that led there (the Trainer's loop is the
    // library's: the user's nearest line is the method the user overrides).
    CHECK(
        logits->where ==
        "torch/nn/modules/linear.py:134 in Linear.forward <- tests/gpu/pytorch/trainer_loop.py:33 "
        "in PlantedTrainer.compute_loss");
    for (const analysis::Holder& h : held.holders) CHECK(h.role != trace::HeldRole::kGradient);
  }
}

// The largest allocated (block) peak of a run, its composition listed.
const analysis::IterationMemory* blockPeak(const analysis::Report& r) {
  const analysis::IterationMemory* peak = nullptr;
  for (const analysis::IterationRow& row : r.iterations) {
    for (const analysis::IterationMemory& m : row.memory) {
      if (m.key.kind == trace::MemoryKind::kBlock && m.peak_composition &&
          (peak == nullptr || m.peak > peak->peak)) {
        peak = &m;
      }
    }
  }
  return peak;
}

// The same run's sites: each named by the frame that allocated with the user's line beside it.
// Backward's blocks, made on the autograd engine's thread, carry the line that called backward
// (here the Trainer's, reached from trainer.train()); at the allocated peak no listed bytes lack a
// name.
TEST_CASE("transformers' Trainer: sites name the library's frame and the user's line", "[golden]") {
  analysis::Report r = replay(kDir / "trainer_steps.txt", trace::Writer::kDefaultChunkBytes);
  const analysis::IterationMemory* peak = blockPeak(r);
  REQUIRE(peak != nullptr);
  uint64_t backward = 0, unnamed = 0;
  for (const analysis::PeakSite& site : peak->peak_composition->sites) {
    INFO(site.where);
    if (site.where == "backward <- tests/gpu/pytorch/trainer_loop.py:71 in main")
      backward += site.live.total().bytes;
    if (site.where.starts_with("(")) unnamed += site.live.total().bytes;
    CHECK(site.where.find(" <- ") != std::string::npos);  // no site is a user line alone here
    CHECK(site.where.find("/site-packages/") == std::string::npos);  // from the package's root
  }
  CHECK(backward >= 100 * units::kMiB);  // the largest part of the peak: logits' gradients
  CHECK(unnamed == 0);
}

// The same run's modules (recorded with MEMFLOOR_MODULES=1): the peak is told by the layers of
// the model that made its blocks, the planted logits under the head that computed them, and what
// no forward made (the optimizer's states, the weights moved to the GPU) under "(no module)".
TEST_CASE("transformers' Trainer: the peak by module path", "[golden]") {
  analysis::Report r = replay(kDir / "trainer_steps.txt", trace::Writer::kDefaultChunkBytes);
  const analysis::IterationMemory* peak = blockPeak(r);
  REQUIRE(peak != nullptr);
  const std::vector<analysis::PeakModule>& modules = peak->peak_composition->modules;
  REQUIRE(!modules.empty());
  auto bytesOf = [&](std::string_view name) {
    for (const analysis::PeakModule& m : modules)
      if (m.module == name) return m.live.bytes;
    return uint64_t{0};
  };
  CHECK(bytesOf("GPT2LMHeadModel.lm_head") >= 52428800);  // the logits the head made
  std::set<std::string> blocks;  // the transformer's layers seen at the peak
  for (const analysis::PeakModule& m : modules) {
    if (m.module.starts_with("GPT2LMHeadModel.transformer.h."))
      blocks.insert(m.module.substr(0, m.module.find('.', 30)));
  }
  CHECK(blocks == std::set<std::string>{"GPT2LMHeadModel.transformer.h.0",
                                        "GPT2LMHeadModel.transformer.h.1"});
  uint64_t optimizer = 0;
  for (const analysis::PeakSite& site : peak->peak_composition->sites)
    if (site.where.find("in Adam._init_group") != std::string::npos)
      optimizer += site.live.total().bytes;
  CHECK(optimizer > 0);
  CHECK(bytesOf("(no module)") >= optimizer);
  for (size_t i = 1; i < modules.size(); ++i)
    CHECK(modules[i - 1].live.bytes >= modules[i].live.bytes);
}

}  // namespace
}  // namespace memfloor::reports::test
