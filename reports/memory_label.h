// How tables and messages name memory: "0:device", and on a device with allocator blocks
// (PyTorch's caching allocator) "0:reserved" for its segments and "0:allocated" for its blocks.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "analysis/merged_report.h"
#include "analysis/report.h"

namespace memfloor::reports {

// A kind as report.json names it (trace::toString) shown as tables show it: "allocated" for
// block, "reserved" for device where the device has blocks, else the name itself.
std::string_view kindLabel(std::string_view kind, bool device_has_blocks);

// "DEVICE:LABEL" of one memory of a run (kindLabel, blocks as the run has them on the device).
std::string memoryLabel(const analysis::Report& run, const analysis::MemoryKey& key);

// The worst run's steady idle floor as a one-liner shows it: "104.9 MiB", or where it is the
// allocated floor, "60.0 MiB allocated (reserved 80.0 MiB)"; "" when there is no worst run.
std::string headlineFloor(const analysis::MergedReport& report);

}  // namespace memfloor::reports
