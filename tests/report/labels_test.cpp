// Tests of report/labels: bytes and durations for people, how tables and messages name memory,
// and the headline floor of a report, with and without a caching allocator's blocks.
#include "report/labels.h"

#include <catch2/catch.hpp>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "tests/analysis/checked_analysis.h"
#include "tests/analysis/scenarios.h"

namespace memfloor::report::test {
namespace {

using trace::MemoryKind;

// The table the page's script is held to as well (tests/html/format_test.mjs).
const std::string kFormats = std::string(MEMFLOOR_TESTDATA_DIR) + "/report/formats.json";
const std::string kCachingAllocator =
    std::string(MEMFLOOR_TESTDATA_DIR) + "/analysis/caching_allocator.txt";

TEST_CASE("kind labels: allocated for blocks, reserved for device memory beside them", "[labels]") {
  CHECK(kindLabel("block", true) == "allocated");
  CHECK(kindLabel("block", false) == "allocated");
  CHECK(kindLabel("device", true) == "reserved");
  CHECK(kindLabel("device", false) == "device");
  CHECK(kindLabel("pinned", true) == "pinned");
  CHECK(kindLabel("unknown", false) == "unknown");
}

TEST_CASE("memory labels follow the run's blocks, device by device", "[labels]") {
  const analysis::Report run = analysis::test::analyzeFile(kCachingAllocator);
  CHECK(memoryLabel(run, {0, MemoryKind::kDevice}) == "0:reserved");
  CHECK(memoryLabel(run, {0, MemoryKind::kBlock}) == "0:allocated");
  CHECK(memoryLabel(run, {1, MemoryKind::kDevice}) == "1:device");  // no blocks on device 1
  CHECK(memoryLabel(run, {0, MemoryKind::kPinned}) == "0:pinned");
  const analysis::Report plain = analysis::test::analyze(analysis::test::trainingLoop().trace);
  CHECK(memoryLabel(plain, {0, MemoryKind::kDevice}) == "0:device");
}

TEST_CASE("the headline floor is the allocated one, the reserved one beside it", "[labels]") {
  const report::MergedReport blocks =
      analysis::test::merge({analysis::test::analyzeFile(kCachingAllocator)});
  CHECK(headlineFloor(blocks) == "9.00 MiB allocated (reserved 22.0 MiB)");
  const report::MergedReport plain =
      analysis::test::merge({analysis::test::analyze(analysis::test::trainingLoop().trace)});
  CHECK(headlineFloor(plain) == "72.0 MiB");
  CHECK(headlineFloor(analysis::test::merge({})).empty());  // no run, no worst
}

// Each [value, text] of one table of testdata/report/formats.json, written by `format`.
void checkTable(const std::string& name, std::string (*format)(uint64_t)) {
  std::ifstream in(kFormats);
  REQUIRE(in);
  const nlohmann::json table = nlohmann::json::parse(in).at(name);
  REQUIRE(table.size() >= 15);
  for (const nlohmann::json& row : table) {
    INFO(name << ": " << row.dump());
    CHECK(format(row.at(0).get<uint64_t>()) == row.at(1).get<std::string>());
  }
}

TEST_CASE("formatBytes writes the shared table's texts", "[labels]") {
  checkTable("bytes", formatBytes);
  // Past the page's exact numbers (2^53), which the table keeps to.
  CHECK(formatBytes(UINT64_MAX) == "16.0 EiB");
  CHECK(formatBytes(uint64_t{1} << 60) == "1.00 EiB");
}

TEST_CASE("formatDuration writes the shared table's texts", "[labels]") {
  checkTable("durations_ns", formatDuration);
  CHECK(formatDuration(UINT64_MAX) == "18446744073.71 s");
}

}  // namespace
}  // namespace memfloor::report::test
