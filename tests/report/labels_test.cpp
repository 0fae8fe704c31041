// Tests of report/labels: bytes and durations for people, how tables and messages name memory,
// and the headline floor of a report, with and without a caching allocator's blocks.
#include "report/labels.h"

#include <catch2/catch.hpp>
#include <string>

#include "tests/analysis/checked_analysis.h"
#include "tests/analysis/scenarios.h"

namespace memfloor::report::test {
namespace {

using trace::MemoryKind;

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

TEST_CASE("formatBytes uses binary units", "[labels]") {
  CHECK(formatBytes(0) == "0 B");
  CHECK(formatBytes(1023) == "1023 B");
  CHECK(formatBytes(1536) == "1.50 KiB");
  CHECK(formatBytes(72 * analysis::test::kMiB) == "72.0 MiB");
  CHECK(formatBytes(3ull << 30) == "3.00 GiB");
  CHECK(formatBytes(UINT64_MAX) == "16.0 EiB");
}

TEST_CASE("formatDuration picks the unit", "[labels]") {
  CHECK(formatDuration(800) == "800 ns");
  CHECK(formatDuration(12'500) == "12.5 us");
  CHECK(formatDuration(33'178'247) == "33.2 ms");
  CHECK(formatDuration(2'500'000'000) == "2.50 s");
}

}  // namespace
}  // namespace memfloor::report::test
