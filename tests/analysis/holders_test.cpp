// Tests of the holders in the replay: a census's storages matched to the live blocks (each block
// once), the census put into its idle window, and the classes its holders get.
#include "analysis/holders.h"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "checked_analysis.h"
#include "invariants.h"
#include "scenarios.h"

namespace memfloor::analysis::test {
namespace {

constexpr uint64_t kSegment = 0x7f0000000000;
constexpr uint64_t kWeights = kSegment;                  // 8 MiB block, before iteration 1
constexpr uint64_t kWorkspace = kSegment + 8 * kMiB;     // 2 MiB block, no Python path
constexpr uint64_t kPlanted = kSegment + 16 * kMiB;      // 1 MiB per iteration, two in turn
constexpr uint64_t kLosses = kSegment + 32 * kMiB;       // 64 KiB per iteration, kept
constexpr uint64_t kActivations = kSegment + 48 * kMiB;  // 4 MiB, freed inside the iteration
const At kBlockAt{.kind = MemoryKind::kBlock};

uint64_t planted(uint64_t i) { return kPlanted + (i % 2) * kMiB; }
uint64_t loss(uint64_t i) { return kLosses + i * 64 * kKiB; }

// PyTorch's caching allocator: one segment; blocks for the weights, a workspace, an attribute
// replaced each iteration and a list of losses that grows. Iteration i (0-based) runs over
// [1000 (i + 1) + 100, 1000 (i + 1) + 900]; a census at + 950 in each window, unless `census` is
// false.
TraceBuilder plantedLoop(uint32_t iterations, bool census = true) {
  TraceBuilder t;
  const trace::StackId init = t.stack({{"Model.__init__", "model.py", 12}});
  const trace::StackId forward = t.stack({{"Model.forward", "model.py", 40}});
  const trace::StackId step = t.stack({{"train_step", "train.py", 30}});
  t.alloc(10, kSegment, 64 * kMiB);
  t.alloc(20, kWeights, 8 * kMiB, {.kind = MemoryKind::kBlock, .stack = init});
  t.alloc(30, kWorkspace, 2 * kMiB, kBlockAt);
  for (uint64_t i = 0; i < iterations; ++i) {
    const uint64_t base = 1000 * (i + 1);
    t.push(base + 100, "iteration " + std::to_string(i + 1));
    if (i > 0) t.free(base + 110, planted(i - 1), kBlockAt);
    t.alloc(base + 200, kActivations, 4 * kMiB, kBlockAt);
    t.alloc(base + 300, planted(i), kMiB, {.kind = MemoryKind::kBlock, .stack = forward});
    t.alloc(base + 400, loss(i), 64 * kKiB, {.kind = MemoryKind::kBlock, .stack = step});
    t.free(base + 500, kActivations, kBlockAt);
    t.pop(base + 900);
    if (!census) continue;
    std::vector<StorageSpec> storages = {
        {kWeights, 8 * kMiB, "model.weight", "", 2, trace::HeldRole::kParameter},
        {planted(i), kMiB, "model.planted"}};
    for (uint64_t k = 0; k <= i; ++k) {
      storages.push_back({loss(k), 64 * kKiB, "trainer.losses[" + std::to_string(k) + "]"});
    }
    t.census(base + 950, static_cast<uint32_t>(i + 1), storages);
  }
  return t;
}

const Holder& holderOf(const HeldBy& census, const std::string& path) {
  for (const Holder& h : census.holders) {
    if (h.path == path) return h;
  }
  FAIL("no holder " << path);
  throw;  // unreachable: FAIL throws
}

TEST_CASE("A census's storages are matched to the live blocks, each block once", "[holders]") {
  TraceBuilder t = plantedLoop(1, false);
  t.census(1950, 1,
           {{kWeights, 8 * kMiB, "model.weight", "", 2, trace::HeldRole::kParameter},
            {kWeights + 4 * kMiB, 4 * kMiB, "model.weight_view"},  // inside a counted block
            {planted(0) + 512, 4096, "model.planted.part", "MulBackward0 > GeluBackward0"},
            {planted(0) + 8192, 4096, "model.planted.part"},  // the same block, the same path
            {0x7e0000000000, 4096, "stale"}});                // no live block there
  const Report r = analyze(t);
  REQUIRE(r.iterations.size() == 1);
  REQUIRE(r.iterations[0].held_by.size() == 1);
  const HeldBy& h = r.iterations[0].held_by[0];
  CHECK(h.device == 0);
  CHECK(h.timestamp == 1950);
  CHECK(h.step == 1);
  // Live blocks then: weights, workspace, planted, one loss.
  CHECK(h.allocated == 8 * kMiB + 2 * kMiB + kMiB + 64 * kKiB);
  CHECK(h.allocated == memoryOf(r.iterations[0], 0, MemoryKind::kBlock).idle.live_at_end);
  CHECK(h.held == Tally{9 * kMiB, 2});
  CHECK(h.not_seen == Tally{2 * kMiB + 64 * kKiB, 2});
  CHECK_THAT(h.not_seen_reason, Catch::StartsWith("kept by C++ only"));
  CHECK(h.storages.found == Tally{8 * kMiB + 4 * kMiB + 3 * 4096, 5});
  CHECK(h.storages.same_block == Tally{4 * kMiB + 4096, 2});
  CHECK(h.storages.not_matched == Tally{4096, 1});
  REQUIRE(h.holders.size() == 2);
  CHECK(h.holders[0].path == "model.weight");
  CHECK(h.holders[0].bytes == 8 * kMiB);
  CHECK(h.holders[0].storage_bytes == 8 * kMiB);
  CHECK(h.holders[0].shared);
  CHECK(h.holders[0].role == trace::HeldRole::kParameter);
  CHECK(h.holders[0].where == "model.py:12 in Model.__init__");
  const Holder& part = h.holders[1];
  CHECK(part.path == "model.planted.part");
  CHECK(part.bytes == kMiB);  // the block's size, not the storage's
  CHECK(part.count == 1);
  CHECK(part.storage_bytes == 4096);  // the second storage's block was counted for the first
  CHECK(part.address == planted(0) + 512);
  CHECK(part.via_graph == std::vector<std::string>{"MulBackward0", "GeluBackward0"});
  CHECK_FALSE(part.shared);
  CHECK(part.where == "model.py:40 in Model.forward");
  CHECK(h.by_class.total() == h.held);
  CHECK(r.census == CensusCount{1, 1, {}});
}

TEST_CASE("Holders classed by role, replacement, a growing container and time", "[holders]") {
  const Report r = analyze(plantedLoop(4));
  REQUIRE(r.iterations.size() == 4);
  CHECK(r.census == CensusCount{4, 4, {}});
  const HeldBy& first = r.iterations[0].held_by.at(0);
  CHECK(holderOf(first, "model.weight").rule == "role: parameter");
  CHECK(holderOf(first, "model.planted").cls == RetentionClass::kInterIteration);
  CHECK(holderOf(first, "model.planted").rule ==
        "time: inter-iteration (freed before the run's end)");
  CHECK(holderOf(first, "trainer.losses[0]").cls == RetentionClass::kLeak);
  CHECK_THAT(holderOf(first, "trainer.losses[0]").rule, Catch::StartsWith("time: leak"));

  const HeldBy& third = r.iterations[2].held_by.at(0);
  CHECK(holderOf(third, "model.planted").rule == "replaced since the census at step 2");
  CHECK(holderOf(third, "model.planted").cls == RetentionClass::kInterIteration);
  for (const char* path : {"trainer.losses[0]", "trainer.losses[2]"}) {
    CHECK(holderOf(third, path).cls == RetentionClass::kLeak);
    CHECK(holderOf(third, path).rule ==
          "container grew from 2 to 3 elements since the census at step 2");
  }
  CHECK(third.by_class.persistent == Tally{8 * kMiB, 1});
  CHECK(third.by_class.inter_iteration == Tally{kMiB, 1});
  CHECK(third.by_class.leak == Tally{3 * 64 * kKiB, 3});
  CHECK(third.not_seen == Tally{2 * kMiB, 1});
  // What the iterations keep first, by bytes, then by path; persistent state after.
  CHECK(third.holders[0].path == "model.planted");
  CHECK(third.holders[1].path == "trainer.losses[0]");
  CHECK(third.holders[2].path == "trainer.losses[1]");
  CHECK(third.holders.back().path == "model.weight");
}

TEST_CASE("A census counts in the idle window it falls in; the last of a window is used",
          "[holders]") {
  TraceBuilder t = plantedLoop(2, false);
  const std::vector<StorageSpec> weight = {
      {kWeights, 8 * kMiB, "model.weight", "", 1, trace::HeldRole::kParameter}};
  t.census(5, 0, weight);     // before the first iteration
  t.census(1500, 1, weight);  // inside iteration 1
  t.census(1900, 1, weight);  // at its end: in the window
  t.census(1950, 1, {{planted(0), kMiB, "model.planted"}});
  t.census(2950, 2, weight);  // the final window
  const Report r = analyze(t);
  REQUIRE(r.iterations.size() == 2);
  CHECK(r.census.taken == 5);
  CHECK(r.census.in_idle_windows == 3);
  CHECK(r.census.outside == std::vector<CensusOutside>{{5, 0, 0}, {1500, 0, 1}});
  REQUIRE(r.iterations[0].held_by.size() == 1);
  CHECK(r.iterations[0].held_by[0].timestamp == 1950);
  CHECK(r.iterations[0].held_by[0].holders.at(0).path == "model.planted");
  REQUIRE(r.iterations[1].held_by.size() == 1);
  CHECK(r.iterations[1].held_by[0].timestamp == 2950);
  // The census before is the one used in window 1: model.weight is new since.
  CHECK(r.iterations[1].held_by[0].holders.at(0).rule == "role: parameter");
}

TEST_CASE("Storages count only for the census just before them", "[holders]") {
  TraceBuilder t = plantedLoop(1, false);
  const trace::StringId path = t.name("model.weight");
  t.record(trace::Held{1940, kWeights, 8 * kMiB, path, trace::kNoId, 0, 1});  // before any census
  t.census(1950, 1, {{planted(0), kMiB, "model.planted"}});
  t.record(trace::Held{1950, kWeights, 8 * kMiB, path, trace::kNoId, 1, 1});  // another device
  t.record(trace::Held{1950, kWeights, 8 * kMiB, path, trace::kNoId, 0, 1});  // past its storages
  t.census(1960, 1, {});  // none: its device's allocated bytes are all not seen
  t.record(trace::Held{1960, kWeights, 8 * kMiB, path, trace::kNoId, 0, 1});
  const Report r = analyze(t);
  REQUIRE(r.iterations.at(0).held_by.size() == 1);
  const HeldBy& h = r.iterations[0].held_by[0];
  CHECK(h.timestamp == 1960);
  CHECK(h.holders.empty());
  CHECK(h.storages.found == Tally{});
  CHECK(h.held == Tally{});
  CHECK(h.not_seen.bytes == h.allocated);
  CHECK(r.census.in_idle_windows == 2);
}

TEST_CASE("Without censuses, no holder and an empty count", "[holders]") {
  const Report r = analyze(plantedLoop(3, false));
  for (const IterationRow& row : r.iterations) CHECK(row.held_by.empty());
  CHECK(r.census == CensusCount{});
}

TEST_CASE("A device without blocks: storages lie in its device allocations", "[holders]") {
  TraceBuilder t;
  t.alloc(10, 0x10000000, 32 * kMiB);  // two parameters' storages
  t.alloc(20, 0x20000000, 4 * kMiB);   // a workspace
  t.push(100, "iteration 1").alloc(200, 0x30000000, kMiB).pop(900);
  t.census(950, 0,
           {{0x10000000, 16 * kMiB, "model.a", "", 1, trace::HeldRole::kParameter},
            {0x10000000 + 16 * kMiB, 16 * kMiB, "model.b", "", 1, trace::HeldRole::kParameter},
            {0x30000000 + 256, 1024, "kept"}});
  const Report r = analyze(t);
  const HeldBy& h = r.iterations.at(0).held_by.at(0);
  CHECK(h.allocated == 37 * kMiB);
  CHECK(h.held == Tally{33 * kMiB, 2});
  CHECK(h.not_seen == Tally{4 * kMiB, 1});
  CHECK_THAT(h.not_seen_reason, Catch::StartsWith("no found storage lies in them"));
  CHECK(h.storages.same_block == Tally{16 * kMiB, 1});
  REQUIRE(h.holders.size() == 2);
  CHECK(h.holders[0].path == "model.a");
  CHECK(h.holders[0].bytes == 32 * kMiB);
  CHECK(h.holders[1].path == "kept");
  CHECK(h.holders[1].bytes == kMiB);
  CHECK(h.holders[1].rule == "time: persistent (made once and kept to the run's end)");
  CHECK(h.step == 0);
}

TEST_CASE("One census per device, by device; past 4 x --top the holders are left out",
          "[holders]") {
  TraceBuilder t;
  t.push(100, "iteration 1");
  for (uint32_t device = 0; device < 2; ++device) {
    for (uint64_t k = 0; k < 6; ++k) {
      t.alloc(200 + k, 0x10000000 + k * kMiB, (k + 1) * kKiB, {.device = device});
    }
  }
  t.pop(900);
  for (uint32_t device : {1u, 0u}) {
    std::vector<StorageSpec> storages;
    for (uint64_t k = 0; k < 6; ++k) {
      storages.push_back({0x10000000 + k * kMiB, kKiB, "x" + std::to_string(k)});
    }
    t.census(950, 1, storages, device);
  }
  AnalysisOptions options;
  options.top_sites = 1;
  const Report r = analyze(t, options);
  const std::vector<HeldBy>& held_by = r.iterations.at(0).held_by;
  REQUIRE(held_by.size() == 2);
  CHECK(held_by[0].device == 0);
  CHECK(held_by[1].device == 1);
  for (const HeldBy& h : held_by) {
    REQUIRE(h.holders.size() == 4);
    CHECK(h.holders[0].path == "x5");  // the largest block first
    CHECK(h.holders_left_out == Tally{(1 + 2) * kKiB, 2});
    CHECK(h.by_class.total().bytes == 21 * kKiB);
  }
}

TEST_CASE("A census in a detected idle window", "[holders][detect]") {
  Loop loop = trainingLoop({.iterations = 6});
  // Marked iteration 2 ends at 1900; the detected one before it ends at its last free (1800), and
  // the next begins at 2120: 1950 is in that quiet gap, before the replay knows the cut.
  loop.trace.census(1950, 2, {{0x10000000, 64 * kMiB, "model.weight"}});
  AnalysisOptions blind;
  blind.iteration_pattern = "no marker is named this";
  const Report r = analyze(loop.trace, blind);
  REQUIRE(r.iteration_source == IterationSource::kDetected);
  CHECK(r.census == CensusCount{1, 1, {}});
  REQUIRE(r.iterations.size() >= 2);
  CHECK(r.iterations[0].idle_start_ns <= 1950);
  CHECK(r.iterations[0].idle_end_ns > 1950);
  REQUIRE(r.iterations[0].held_by.size() == 1);
  const Holder& weight = r.iterations[0].held_by[0].holders.at(0);
  CHECK(weight.bytes == 64 * kMiB);
  CHECK(weight.rule == "time: persistent (made before the first counted iteration)");
}

}  // namespace
}  // namespace memfloor::analysis::test

namespace memfloor::analysis::test {
namespace {

TEST_CASE("A block handed out again at its old address is another storage: replaced", "[holders]") {
  // A caching allocator gives a same-size tensor the block the last one freed: the attribute's
  // storage has the same address in every census, and is a new allocation each time.
  TraceBuilder t;
  t.alloc(10, kSegment, 64 * kMiB);
  t.alloc(20, kWeights, 8 * kMiB, kBlockAt);
  for (uint64_t i = 0; i < 3; ++i) {
    const uint64_t base = 1000 * (i + 1);
    t.push(base + 100, "iteration " + std::to_string(i + 1));
    if (i > 0) t.free(base + 110, kPlanted, kBlockAt);
    t.alloc(base + 300, kPlanted, kMiB, kBlockAt);
    t.pop(base + 900);
    t.census(base + 950, static_cast<uint32_t>(i + 1),
             {{kWeights, 8 * kMiB, "model.cache"}, {kPlanted, kMiB, "model.kept"}});
  }
  const Report r = analyze(t);
  REQUIRE(r.iterations.size() == 3);
  const HeldBy& last = r.iterations[2].held_by.at(0);
  CHECK(holderOf(last, "model.kept").cls == RetentionClass::kInterIteration);
  CHECK(holderOf(last, "model.kept").rule == "replaced since the census at step 2");
  CHECK(holderOf(last, "model.cache").cls == RetentionClass::kPersistent);
  CHECK(holderOf(last, "model.cache").rule == "same storage since the census at step 1");
}

}  // namespace
}  // namespace memfloor::analysis::test
