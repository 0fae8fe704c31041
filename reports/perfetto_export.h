// Chrome trace-event JSON from reports: live-bytes counters, iterations, idle windows and marker
// ranges, for Perfetto UI and chrome://tracing (docs/exports.md).
#pragma once

#include <nlohmann/json.hpp>
#include <span>
#include <string>

#include "report/model.h"

namespace memfloor::reports {

// The JSON object format of the trace-event format: {"traceEvents": [...], "displayTimeUnit":
// "ns", "otherData": {...}}. Pure: reads only the report. Counters come from Report::timeline,
// slices from Report::iterations, marker ranges from Report::ranges (filled only when the analysis
// ran with AnalysisOptions::keep_ranges). Timestamps are microseconds since the report's first
// record (Report::first_ns), fractional, so nanoseconds survive.
nlohmann::json toChromeTrace(const report::Report& report);

// Several runs (one per rank or process) in one trace, one process each; timestamps are relative
// to the earliest first record of all runs.
nlohmann::json toChromeTrace(std::span<const report::Report> reports);

// Serialises a trace compactly. Names in a trace are raw bytes: invalid UTF-8 is replaced with
// U+FFFD rather than refused.
std::string dumpChromeTrace(const nlohmann::json& trace);

}  // namespace memfloor::reports
