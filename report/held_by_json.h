// The holders in report.json: iterations[].held_by and runs[].census, written and read back
// (docs/report-schema.md, "held_by").
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "common/json_fields.h"
#include "report/model.h"

namespace memfloor::report {

nlohmann::json heldByJson(const std::vector<HeldBy>& held_by);
nlohmann::json censusJson(const CensusCount& census);

// The held_by of one iteration (named `context`); absent (a report written before censuses) reads
// as none.
std::vector<HeldBy> readHeldBy(const common::JsonFields& f, const nlohmann::json& row,
                               const std::string& context);
// The census of one run (named `context`); absent reads as no census taken.
CensusCount readCensus(const common::JsonFields& f, const nlohmann::json& run,
                       const std::string& context);

}  // namespace memfloor::report
