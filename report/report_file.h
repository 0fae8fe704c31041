// Reading report.json from a file, with an error that names the file and what is wrong.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "common/json_input.h"
#include "report/report_json.h"  // kReportSchema

namespace memfloor::report {

// How readers of report.json check it (common/json_input.h): the major this build writes, and the
// older ones it reads (docs/report-schema.md, "Versioning").
inline constexpr common::JsonSchema kReportDocument{
    kReportSchema, "memfloor report", "re-run memfloor analyze on the trace with this version",
    kOldestReportMajor};

// Reads and parses `path` through the common loader and checks that it is a memfloor report of
// the schema this build reads. Throws memfloor::Error naming the file when it cannot be read, is
// empty or too large, is not JSON, is not an object, has no report schema, or has another major.
// Fields are read by the typed reader (report_reader.h).
nlohmann::json loadReportJson(const std::string& path);

// The same checks on a document already parsed; `name` names it in messages.
void checkReportSchema(const nlohmann::json& doc, std::string_view name);

}  // namespace memfloor::report
