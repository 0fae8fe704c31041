// Tests of reports/memory_label: how tables and messages name memory, and the headline floor of
// a report, with and without a caching allocator's blocks.
#include "reports/memory_label.h"

#include <catch2/catch.hpp>
#include <string>

#include "tests/analysis/checked_analysis.h"
#include "tests/analysis/scenarios.h"

namespace memfloor::reports::test {
namespace {

using trace::MemoryKind;

const std::string kCachingAllocator =
    std::string(MEMFLOOR_TESTDATA_DIR) + "/analysis/caching_allocator.txt";

TEST_CASE("kind labels: allocated for blocks, reserved for device memory beside them",
          "[memory_label]") {
  CHECK(kindLabel("block", true) == "allocated");
  CHECK(kindLabel("block", false) == "allocated");
  CHECK(kindLabel("device", true) == "reserved");
  CHECK(kindLabel("device", false) == "device");
  CHECK(kindLabel("pinned", true) == "pinned");
  CHECK(kindLabel("unknown", false) == "unknown");
}

TEST_CASE("memory labels follow the run's blocks, device by device", "[memory_label]") {
  const analysis::Report run = analysis::test::analyzeFile(kCachingAllocator);
  CHECK(memoryLabel(run, {0, MemoryKind::kDevice}) == "0:reserved");
  CHECK(memoryLabel(run, {0, MemoryKind::kBlock}) == "0:allocated");
  CHECK(memoryLabel(run, {1, MemoryKind::kDevice}) == "1:device");  // no blocks on device 1
  CHECK(memoryLabel(run, {0, MemoryKind::kPinned}) == "0:pinned");
  const analysis::Report plain = analysis::test::analyze(analysis::test::trainingLoop().trace);
  CHECK(memoryLabel(plain, {0, MemoryKind::kDevice}) == "0:device");
}

TEST_CASE("the headline floor is the allocated one, the reserved one beside it", "[memory_label]") {
  const analysis::MergedReport blocks =
      analysis::test::merge({analysis::test::analyzeFile(kCachingAllocator)});
  CHECK(headlineFloor(blocks) == "9.00 MiB allocated (reserved 22.0 MiB)");
  const analysis::MergedReport plain =
      analysis::test::merge({analysis::test::analyze(analysis::test::trainingLoop().trace)});
  CHECK(headlineFloor(plain) == "72.0 MiB");
  CHECK(headlineFloor(analysis::test::merge({})).empty());  // no run, no worst
}

}  // namespace
}  // namespace memfloor::reports::test
