// findings in report.json: the checker's findings, what each explains and which holders it names
// (docs/report-schema.md, "findings"): written and read back.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "common/json_fields.h"
#include "report/merged_report.h"

namespace memfloor::report {

// findings: source, items (each the checker's finding plus what the report adds), errors.
nlohmann::json findingsJson(const MergedReport& m);

// One of findings.items[] (named `c`); it needs only `id`, `rule` and `message`.
LinkedFinding readFinding(const common::JsonFields& f, const nlohmann::json& j,
                          const std::string& c);

// findings' source, errors and `items` (read by readFinding) into m.findings, and what each finding
// explains into its run's Report::explained; m.runs must be read already.
void readFindings(const common::JsonFields& f, const nlohmann::json& doc,
                  std::vector<LinkedFinding> items, MergedReport& m);

}  // namespace memfloor::report
