// The self-contained HTML report: report.json (and a gate result) in, one HTML page out.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

namespace memfloor::reports {

// Reads a gate result (`memfloor gate --json`) through the common loader (common/json_input.h)
// and checks its schema is memfloor.gate/1. Throws memfloor::Error naming `path` when it cannot be
// read, is not JSON or is another document. Reports are read with loadReportJson (report_file.h).
nlohmann::json loadGateJson(const std::string& path);

// The JSON text of `doc` made safe inside <script type="application/json">: compact, and with
// '<', '>', '&', U+2028 and U+2029 written as \uXXXX escapes, so no string in it can close the
// element or open a comment; JSON.parse reads back the same document. Invalid UTF-8 in strings
// is replaced by U+FFFD.
std::string scriptSafeJson(const nlohmann::json& doc);

// The page: the embedded template, CSS and JS with the report (and the gate result, or null)
// embedded as data. Its size is the assets' plus the report's compact JSON (at most 6 bytes per
// escaped character), so a report bounded in points keeps the page bounded. The documents are
// embedded as given; only their schemas are checked here (common::checkSchema). Throws
// memfloor::Error when `report` is not a memfloor.report/3 or /2 document or `gate` not a
// memfloor.gate/1 one.
std::string renderHtml(const nlohmann::json& report,
                       const std::optional<nlohmann::json>& gate = std::nullopt);

}  // namespace memfloor::reports
