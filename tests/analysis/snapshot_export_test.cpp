// Tests of analysis/snapshot_export.h: a trace exported as a PyTorch memory snapshot, written as a
// pickle and analysed again, gives the trace's idle floors and classes; each allocation's category
// is the class of the bytes the windows retain.
#include "analysis/snapshot_export.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <map>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "analysis/allocation_ledger.h"
#include "common/pickle.h"
#include "tests/analysis/checked_analysis.h"
#include "trace/torch_snapshot_reader.h"
#include "trace/torch_snapshot_writer.h"

namespace memfloor::analysis::test {
namespace {

const std::string kDir = std::string(MEMFLOOR_TESTDATA_DIR) + "/analysis/";

// Traces of both allocator shapes (blocks in segments, and device allocations alone), marked
// iterations and step records, censuses, leaks and a truncated end.
const char* const kTraces[] = {
    "caching_allocator", "census_holders",      "seed_inter_iteration",
    "leak_growing",      "steps_holder",        "trainer_steps",
    "alike_iterations",  "torch_holders_graph", "threads_devices_truncated"};

bool drawn(trace::MemoryKind kind) {
  return kind == trace::MemoryKind::kDevice || kind == trace::MemoryKind::kBlock;
}

using Key = std::tuple<uint32_t, uint32_t, trace::MemoryKind>;  // iteration, device, kind

std::map<Key, const IterationMemory*> windows(const Report& report) {
  std::map<Key, const IterationMemory*> out;
  for (const IterationRow& row : report.iterations) {
    for (const IterationMemory& m : row.memory) {
      if (drawn(m.key.kind)) out[{row.index, m.key.device, m.key.kind}] = &m;
    }
  }
  return out;
}

// Whether every block is a multiple of 512 bytes, as PyTorch's are: a snapshot's entries hold the
// size asked for, which the reader rounds up (trace/torch_block_sizes.h), so a hand-written
// fixture's odd block keeps its floors and classes but not its peak.
bool blocksRounded(const trace::TorchSnapshot& s) {
  for (uint32_t d = 0; d < s.device_traces.size(); ++d) {
    for (const trace::SnapshotEntry& e : s.device_traces[d]) {
      if (e.action == trace::SnapshotAction::kAlloc && e.size % 512 != 0 &&
          std::count(s.memfloor.mirrored_devices.begin(), s.memfloor.mirrored_devices.end(), d) ==
              0) {
        return false;
      }
    }
  }
  return true;
}

Report reread(const trace::TorchSnapshot& snapshot, const std::string& name) {
  std::ostringstream pickle;
  trace::writeTorchSnapshot(snapshot, pickle, trace::SnapshotForm::kDict);
  const std::string bytes = pickle.str();
  const common::PickleDocument document = common::readPickle(
      std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()), name);
  const std::vector<uint8_t> trace =
      trace::encodeTorchSnapshot(trace::readTorchSnapshot(document.root(), name), name);
  AnalysisOptions options;
  options.compact_iterations = false;
  return analyzeBytes(trace, name, options);
}

TEST_CASE("a trace exported as a snapshot and read again has the trace's floors and classes",
          "[snapshot_export]") {
  for (const char* name : kTraces) {
    INFO(name);
    AnalysisOptions options;
    const SnapshotExport out = exportTorchSnapshot(kDir + name + ".txt", options);
    REQUIRE_FALSE(out.report.iterations.empty());
    const Report again = reread(out.snapshot, name);
    REQUIRE(again.iterations.size() == out.report.iterations.size());
    const bool rounded = blocksRounded(out.snapshot);
    const auto before = windows(out.report);
    const auto after = windows(again);
    REQUIRE(before.size() == after.size());
    for (const auto& [key, m] : before) {
      INFO("iteration " << std::get<0>(key) << " " << trace::toString(std::get<2>(key)));
      REQUIRE(after.count(key) == 1);
      const IterationMemory& a = *after.at(key);
      CHECK(a.idle.floor == m->idle.floor);
      CHECK(a.idle.retained == m->idle.retained);
      if (rounded || std::get<2>(key) != trace::MemoryKind::kBlock) {
        CHECK(a.peak == m->peak);
        CHECK(a.floor == m->floor);
      }
    }
  }
}

// The categories of the blocks (or, without blocks, the device allocations) live throughout each
// idle window sum to what the report says the window retains, class by class.
TEST_CASE("each allocation's category is the class of the bytes it keeps in a window",
          "[snapshot_export]") {
  for (const char* name : kTraces) {
    INFO(name);
    const SnapshotExport out = exportTorchSnapshot(kDir + name + ".txt", AnalysisOptions{});
    const trace::TorchSnapshot& s = out.snapshot;
    struct Life {
      uint64_t begin, end, size;
      std::string category;
    };
    for (uint32_t device = 0; device < s.device_traces.size(); ++device) {
      std::map<uint64_t, Life> open;
      std::vector<Life> lives;
      for (const trace::SnapshotEntry& e : s.device_traces[device]) {
        if (e.action == trace::SnapshotAction::kAlloc) {
          open[e.address] = {e.time_ns, UINT64_MAX, e.size, e.category.str()};
        } else if (e.action == trace::SnapshotAction::kFreeCompleted) {
          Life life = open.at(e.address);
          life.end = e.time_ns;
          lives.push_back(life);
          open.erase(e.address);
        }
      }
      for (const auto& [address, life] : open) lives.push_back(life);
      const bool mirrored = std::count(s.memfloor.mirrored_devices.begin(),
                                       s.memfloor.mirrored_devices.end(), device) != 0;
      const MemoryKey key{device,
                          mirrored ? trace::MemoryKind::kDevice : trace::MemoryKind::kBlock};
      for (const IterationRow& row : out.report.iterations) {
        if (row.idle_final || !row.complete) continue;
        for (const IterationMemory& m : row.memory) {
          if (!(m.key == key)) continue;
          INFO("window " << row.index);
          std::map<std::string, uint64_t> bytes;
          for (const Life& l : lives) {
            if (l.begin < row.idle_start_ns && l.end > row.idle_end_ns) bytes[l.category] += l.size;
          }
          CHECK(bytes["inter_iteration"] == m.idle.retained.inter_iteration.bytes);
          CHECK(bytes["leak"] == m.idle.retained.leak.bytes);
          CHECK(bytes["persistent"] == m.idle.retained.persistent.bytes);
          CHECK(bytes["iteration"] == 0);
        }
      }
    }
  }
}

TEST_CASE("a census's holders are named on the blocks they hold", "[snapshot_export]") {
  const SnapshotExport out = exportTorchSnapshot(kDir + "census_holders.txt", AnalysisOptions{});
  std::map<std::string, std::string> category_of;  // holder -> category
  for (const trace::SnapshotEntry& e : out.snapshot.device_traces.at(0)) {
    if (e.action == trace::SnapshotAction::kAlloc && !e.holder.empty()) {
      category_of[e.holder.str()] = e.category.str();
    }
  }
  CHECK(category_of.at("model.layers[1].planted") == "inter_iteration");
  CHECK(category_of.at("trainer.losses[0]") == "leak");
  CHECK(category_of.at("model.weight") == "persistent");
  // The state at the end tiles each segment with its blocks.
  for (const trace::SnapshotSegment& seg : out.snapshot.segments) {
    uint64_t at = seg.address;
    for (const trace::SnapshotBlock& b : seg.blocks) {
      CHECK(b.address == at);
      at += b.size;
    }
    CHECK(at == seg.address + seg.total_size);
  }
}

}  // namespace
}  // namespace memfloor::analysis::test
