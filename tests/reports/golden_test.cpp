// Golden tests: each testdata/analysis/NAME.txt replayed as `memfloor analyze` replays it, compared
// with NAME.expected.json. Regenerate the expectations only with scripts/update-goldens.sh.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "reports/report_json.h"
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

}  // namespace
}  // namespace memfloor::reports::test
