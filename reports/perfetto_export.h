// Chrome trace-event JSON from reports: live-bytes counters, iterations, idle windows and marker
// ranges, for Perfetto UI and chrome://tracing (docs/exports.md).
#pragma once

#include <nlohmann/json.hpp>
#include <ostream>
#include <span>
#include <string>

#include "report/model.h"

namespace memfloor::reports {

// The JSON object format of the trace-event format: {"traceEvents": [...], "displayTimeUnit":
// "ns", "otherData": {...}}, written to `out` one event at a time (memory holds one event, never
// the list: a run of a million iterations makes gigabytes of them). Several runs (one per rank or
// process) go in one trace, one process each. Pure: reads only the reports. Counters come from
// Report::timeline, slices from Report::iterations, marker ranges from Report::ranges (filled only
// when the analysis ran with AnalysisOptions::keep_ranges). Timestamps are microseconds since the
// earliest first record of all runs (Report::first_ns), fractional, so nanoseconds survive.
void writeChromeTrace(std::span<const report::Report> reports, std::ostream& out);

// The same, parsed: for tests and small traces.
nlohmann::json toChromeTrace(std::span<const report::Report> reports);
nlohmann::json toChromeTrace(const report::Report& report);

// Serialises a value compactly, as writeChromeTrace writes each event. Names in a trace are raw
// bytes: invalid UTF-8 is replaced with U+FFFD rather than refused.
std::string dumpChromeTrace(const nlohmann::json& trace);

}  // namespace memfloor::reports
