// The compact human table `memfloor analyze` prints: per iteration idle floor, peak, retained;
// the largest peak's composition.
#pragma once

#include <cstdint>
#include <string>

#include "analysis/merged_report.h"
#include "analysis/report.h"

namespace memfloor::reports {

// Rows past this many iterations are elided in the middle (the JSON has them all).
inline constexpr size_t kTableMaxIterations = 40;

std::string formatTable(const analysis::Report& report);

// Every run, then (several runs) a per-run summary, the worst run and the findings.
std::string formatTable(const analysis::MergedReport& report);

// "0 B", "512 B", "1.5 KiB", "20.0 MiB", "1.27 GiB": binary units, for people.
std::string formatBytes(uint64_t bytes);

// "800 ns", "12.5 us", "33.2 ms", "2.50 s".
std::string formatDuration(uint64_t ns);

}  // namespace memfloor::reports
