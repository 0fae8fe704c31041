// MergedReport: report.json as a whole: one run per trace, the summary, and the findings merged in.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "report/findings.h"
#include "report/model.h"

namespace memfloor::report {

// The run with the largest steady idle floor of device memory (docs/report-schema.md, summary):
// of its blocks (allocated) on a device with blocks (report/levels.h).
struct WorstRun {
  uint32_t run = 0;
  MemoryKey key;
  uint32_t iteration = 0;
  uint64_t idle_floor = 0;
};

struct MergedReport {
  std::string tool_version;
  std::vector<Report> runs;         // ordered by rank (unknown last), then path
  std::vector<std::string> labels;  // one per run: "rank N", else the trace's file name
  std::optional<FindingsFile> findings;
  std::optional<WorstRun> worst;
  TrendVerdict verdict = TrendVerdict::kUnknown;
};

// The most bytes one finding explains in any idle window of any run (0: it explains nothing).
uint64_t maxExplainedBytes(const MergedReport& report, uint32_t finding);

}  // namespace memfloor::report
