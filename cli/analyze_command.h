// memfloor analyze: traces (and optionally the checker's findings) in, report.json and the floor
// table out.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <string_view>

#include "analysis/analyze_traces.h"
#include "symbols/site_namer.h"

namespace memfloor::cli {

struct AnalyzeRequest {
  analysis::TraceSet traces;  // what is analysed (analysis/analyze_traces.h)
  std::string report_path;    // empty: no JSON written
  bool print_table = true;
  bool strict = false;  // an incomplete trace is an error: no report, exit 2
};

// analysis::analyzeTraces, then writes the report, prints the table and warns of traces that are
// incomplete (no trailer, a corrupt chunk, a trailer that counts other records than were read).
// Returns kExitOk; under `strict` an incomplete trace throws Error instead, before anything is
// written.
int analyzeTraceFile(const AnalyzeRequest& request);

// --site-include and --site-exclude (repeatable) into `patterns`, for every command that names
// sites (analyze, export, run --analyze); an empty pattern is refused when the options are parsed.
// `when` ends the options' help ("; with --analyze").
void addSitePatternOptions(CLI::App& cmd, symbols::SitePatterns& patterns,
                           std::string_view when = "");

}  // namespace memfloor::cli
