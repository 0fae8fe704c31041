// Tests of trace/torch_snapshot_writer.h: what the writer writes, the reader reads back the same,
// in PyTorch's own snapshot and with memfloor's additions.
#include "trace/torch_snapshot_writer.h"

#include <catch2/catch.hpp>
#include <sstream>
#include <string>

#include "common/pickle.h"
#include "trace/rank_from_name.h"
#include "trace/torch_snapshot_reader.h"

namespace memfloor::trace {
namespace {

const std::string kSnapshot =
    std::string(MEMFLOOR_TESTDATA_DIR) + "/snapshots/loop_snapshot.pickle";

common::PickleDocument written(const TorchSnapshot& s, SnapshotForm form) {
  std::ostringstream out;
  writeTorchSnapshot(s, out, form);
  const std::string bytes = out.str();
  return common::readPickle(
      std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()),
      "written");
}

// Written and read again: the snapshot's values are its own, the document may go.
TorchSnapshot readBack(const TorchSnapshot& s) {
  return readTorchSnapshot(written(s, SnapshotForm::kDict).root(), "written");
}

TEST_CASE("a snapshot written and read again is the snapshot", "[torch_snapshot_writer]") {
  const common::PickleDocument original = common::readPickleFile(kSnapshot, "snapshot");
  TorchSnapshot s = readTorchSnapshot(original.root(), kSnapshot);
  REQUIRE_FALSE(s.device_traces.empty());
  REQUIRE_FALSE(s.segments.empty());
  CHECK(readBack(s) == s);

  // memfloor's additions: exact times, holders, categories, steps and mirrored devices.
  s.device_traces[0][0].time_ns = 1234567;
  s.device_traces[0][0].holder = "model.layers[0].x";
  s.device_traces[0][0].module = "Net.layers.0";
  s.device_traces[0][1].category = "inter_iteration";
  s.segments[0].blocks[0].holder = "model.w";
  s.segments[0].blocks[0].category = "persistent";
  s.memfloor.steps = {{true, 10}, {false, 20}, {true, 30}};
  s.memfloor.mirrored_devices = {1};
  CHECK(readBack(s) == s);
}

TEST_CASE("PyTorch 1.13's form is a list of segments, which the reader refuses by name",
          "[torch_snapshot_writer]") {
  const common::PickleDocument original = common::readPickleFile(kSnapshot, "snapshot");
  const TorchSnapshot s = readTorchSnapshot(original.root(), kSnapshot);
  const common::PickleDocument doc = written(s, SnapshotForm::kSegmentList);
  REQUIRE(doc.root().kind() == common::PickleKind::kList);
  REQUIRE(doc.root().items().size() == s.segments.size());
  const common::PickleValue& first_block = *doc.root().items()[0]->find("blocks")->items()[0];
  CHECK(first_block.find("state") != nullptr);
  CHECK_THROWS_WITH(readTorchSnapshot(doc.root(), "old"),
                    Catch::Contains("old: a list of segments: the form of PyTorch 1.13"));
}

}  // namespace
}  // namespace memfloor::trace

namespace memfloor::trace {
namespace {

TEST_CASE("a snapshot's rank is the one its file name gives", "[torch_snapshot]") {
  CHECK(rankFromName("rank3.pickle") == 3);
  CHECK(rankFromName("job/snapshot_rank_12.pickle") == 12);
  CHECK(rankFromName("Rank-0.json") == 0);
  CHECK(rankFromName("frank7/memory.pickle") == kUnknownRank);  // a folder's name is not the file's
  CHECK(rankFromName("ranked.pickle") == kUnknownRank);
  CHECK(rankFromName("rank_.pickle") == kUnknownRank);
  CHECK(rankFromName("snapshot.pickle") == kUnknownRank);
  CHECK(rankFromName("rank99999999999.pickle") == kUnknownRank);  // not a rank: out of range
}

}  // namespace
}  // namespace memfloor::trace
