// report.json: the Report as JSON, schema memfloor.report/1 (docs/report-schema.md).
#pragma once

#include <nlohmann/json.hpp>

#include "reports/report.h"

namespace memfloor::reports {

// Sizes in bytes and times in ns are JSON integers; keys are snake_case.
nlohmann::json toJson(const Report& report);

}  // namespace memfloor::reports
