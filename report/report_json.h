// report.json: the MergedReport as JSON, schema memfloor.report/2 (docs/report-schema.md).
#pragma once

#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <string_view>

#include "report/merged_report.h"
#include "report/model.h"

namespace memfloor::report {

// The report's schema, written here and read by report_file.h and report_reader.h (and by the
// page, reports/html/report.js). Declared only here.
inline constexpr std::string_view kReportSchema = "memfloor.report/3";
// The oldest major the readers read too: a /2 document is a /3 one without iteration ranges.
inline constexpr int kOldestReportMajor = 2;

// Sizes in bytes and times in ns are JSON integers; keys are snake_case.
nlohmann::json toJson(const MergedReport& report);

// report.json's text: indented, a newline at the end; invalid UTF-8 in names becomes U+FFFD.
// writeJson streams it: the per-iteration and timeline arrays are built one element at a time.
void writeJson(std::ostream& out, const MergedReport& report);
std::string toJsonText(const MergedReport& report);

// One run (runs[] without its label): what the golden tests compare.
nlohmann::json toJson(const Report& report);

// Retained bytes of counted iterations (inter-iteration and leak) that no finding explains.
Tally unexplained(const IterationMemory::Idle& idle);

}  // namespace memfloor::report
