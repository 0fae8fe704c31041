// How tables, messages and the page name bytes, durations and memory: "0:device", and on a device
// with allocator blocks (PyTorch's caching allocator) "0:reserved" for its segments and
// "0:allocated" for its blocks.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "report/merged_report.h"
#include "report/model.h"

namespace memfloor::report {

// A kind as report.json names it (trace::toString) shown as tables show it: "allocated" for
// block, "reserved" for device where the device has blocks, else the name itself.
std::string_view kindLabel(std::string_view kind, bool device_has_blocks);

// "DEVICE:LABEL" of one memory of a run (kindLabel, blocks as the run has them on the device).
std::string memoryLabel(const Report& run, const MemoryKey& key);

// The worst run's steady idle floor as a one-liner shows it: "104.9 MiB", or where it is the
// allocated floor, "60.0 MiB allocated (reserved 80.0 MiB)"; "" when there is no worst run.
std::string headlineFloor(const MergedReport& report);

// "0 B", "512 B", "1.50 KiB", "20.0 MiB", "1.27 GiB": binary units, for people; two decimals
// below 10 of the unit, one from 10, rounded to the nearest with ties to even.
std::string formatBytes(uint64_t bytes);

// "800 ns", "12.5 µs", "33.2 ms", "2.50 s", rounded as formatBytes is.
std::string formatDuration(uint64_t ns);

}  // namespace memfloor::report
