// memfloor analyze: traces (and optionally the checker's findings) in, report.json and the floor
// table out.
#pragma once

#include <string>

#include "analysis/analyze_traces.h"

namespace memfloor::cli {

struct AnalyzeRequest {
  analysis::TraceSet traces;  // what is analysed (analysis/analyze_traces.h)
  std::string report_path;    // empty: no JSON written
  bool print_table = true;
};

// analysis::analyzeTraces, then writes the report, prints the table and warns of traces that end
// without a trailer. Returns kExitOk.
int analyzeTraceFile(const AnalyzeRequest& request);

}  // namespace memfloor::cli
