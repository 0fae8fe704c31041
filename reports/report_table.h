// The compact human table `memfloor analyze` prints: per iteration idle floor, peak, retained;
// the largest peak's composition.
#pragma once

#include <cstdint>
#include <string>

#include "report/labels.h"  // formatBytes, formatDuration
#include "report/merged_report.h"

namespace memfloor::reports {

// Rows past this many iterations are elided in the middle (the JSON has them all).
inline constexpr size_t kTableMaxIterations = 40;

std::string formatTable(const report::Report& report);

// Every run, then (several runs) a per-run summary, the worst run and the findings.
std::string formatTable(const report::MergedReport& report);

}  // namespace memfloor::reports
