// memfloor analyze: traces (and optionally the checker's findings) in, report.json and the floor
// table out.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "analysis/analysis.h"
#include "analysis/merged_report.h"

namespace memfloor::cli {

struct AnalyzeRequest {
  std::vector<std::string> trace_paths;  // files, or directories of *.mftrace (memfloor run -o)
  std::string report_path;               // empty: no JSON written
  std::string findings_path;             // empty: no findings merged
  std::string source_root = ".";         // where the findings' relative file names are
  std::vector<std::string> debug_dirs;   // searched for the modules' debug information
  bool symbolize = true;
  analysis::AnalysisOptions options;
  bool print_table = true;
};

// Reads one trace (binary or text form) in timestamp order and runs the analysis
// (analysis::analyzeReplays: without iteration markers it may read the trace three times).
// Throws memfloor::Error on unusable input.
analysis::Report analyzeTrace(const std::string& trace_path,
                             const analysis::AnalysisOptions& options);

// The trace files a request names: files as given, directories expanded to their *.mftrace files
// (sorted). Throws memfloor::Error for a missing path or a directory without traces.
std::vector<std::string> expandTracePaths(const std::vector<std::string>& paths);

// Every trace of the request analysed (symbolized, linked to the findings) and merged.
analysis::MergedReport analyzeTraces(const AnalyzeRequest& request);

// analyzeTraces, then writes the report and prints the table. Returns kExitOk.
int analyzeTraceFile(const AnalyzeRequest& request);

}  // namespace memfloor::cli
