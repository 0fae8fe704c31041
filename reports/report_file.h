// Reading a report.json from a file, with an error that names the file and what is wrong.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace memfloor::reports {

// The report schema major this build reads (docs/report-schema.md, "Versioning").
inline constexpr int kReportSchemaMajor = 2;

// Reads and parses `path` and checks that it is a memfloor report of schema major
// kReportSchemaMajor (`"schema": "memfloor.report/2"`). Throws memfloor::Error naming the file
// when it cannot be read, is empty, is not JSON, is not an object, has no report schema, or has
// another major. Fields are not checked here: each reader checks the ones it uses.
nlohmann::json loadReportJson(const std::string& path);

// The major of a schema string "memfloor.report/<major>"; -1 when it is not of that form.
int reportSchemaMajor(std::string_view schema);

}  // namespace memfloor::reports
