// The holders in report.json: iterations[].held_by and runs[].census, written and read back
// (docs/report-schema.md, "held_by").
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "analysis/report.h"
#include "common/json_fields.h"

namespace memfloor::reports {

nlohmann::json heldByJson(const std::vector<analysis::HeldBy>& held_by);
nlohmann::json censusJson(const analysis::CensusCount& census);

// The held_by of one iteration (named `context`); absent (a report written before censuses) reads
// as none.
std::vector<analysis::HeldBy> readHeldBy(const common::JsonFields& f, const nlohmann::json& row,
                                         const std::string& context);
// The census of one run (named `context`); absent reads as no census taken.
analysis::CensusCount readCensus(const common::JsonFields& f, const nlohmann::json& run,
                                 const std::string& context);

}  // namespace memfloor::reports
