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

// Reads the trace (binary or text form) in timestamp order and runs the analysis.
// Throws memfloor::Error on unusable input.
reports::Report analyzeTrace(const std::string& trace_path, const reports::AnalysisOptions& options);

// analyzeTrace, then writes the report and prints the table. Returns kExitOk.
int analyzeTraceFile(const AnalyzeRequest& request);

}  // namespace memfloor::cli
