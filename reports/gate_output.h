// The gate's result for people and for CI: a table, Markdown, GitHub annotations, JSON.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "reports/gate.h"

namespace memfloor::reports {

// Rows that moved but stay within their thresholds are listed up to this many (regressions
// always); the JSON has every check.
inline constexpr size_t kGateMaxQuietRows = 30;

// The terminal table: changed rows (regressions first), new findings, runs on one side only, and
// the verdict line.
std::string formatGateTable(const GateResult& result);

// A Markdown summary for $GITHUB_STEP_SUMMARY: verdict, changed rows, new findings, thresholds.
std::string formatGateMarkdown(const GateResult& result);

// GitHub workflow commands, one per line: `::error file=F,line=L,...::` for new findings (a
// `::warning` when they are allowed), `::error::` for memory regressions and missing runs,
// `::warning::` for runs not in the baseline.
std::string formatGateAnnotations(const GateResult& result);

// Schema memfloor.gate/1 (docs/report-schema.md, "The gate's result").
nlohmann::json toJson(const GateResult& result);

// Escaping for workflow commands: the message part, and property values (file=, title=).
std::string escapeAnnotationData(std::string_view text);
std::string escapeAnnotationProperty(std::string_view text);

}  // namespace memfloor::reports
