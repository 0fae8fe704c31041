// Merging runs into one report: run order, labels, the worst run and the overall verdict.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "analysis/findings.h"
#include "analysis/report.h"
#include "report/merged_report.h"

namespace memfloor::analysis {

// Orders the runs, names them and finds the worst. `findings` must be the file whose link rules
// the runs were analysed with (AnalysisOptions::links, in the file's order).
MergedReport mergeRuns(std::vector<Report> runs, std::optional<FindingsFile> findings);

}  // namespace memfloor::analysis
