// memfloor analyze: a trace in, report.json and the floor table out.
#pragma once

#include <cstdint>
#include <string>

#include "reports/analysis.h"

namespace memfloor::cli {

struct AnalyzeRequest {
  std::string trace_path;
  std::string report_path;  // empty: no JSON written
  reports::AnalysisOptions options;
  bool print_table = true;
};

// Reads the trace in timestamp order, runs the analysis, writes the report and prints the table.
// Returns kExitOk; throws memfloor::Error on unusable input.
int analyzeTraceFile(const AnalyzeRequest& request);

}  // namespace memfloor::cli
