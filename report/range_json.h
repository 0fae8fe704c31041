// runs[].iteration_ranges in report.json: written and read back (docs/report-schema.md,
// "iteration_ranges[]").
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "common/json_fields.h"
#include "report/model.h"

namespace memfloor::report {

// One range; `blocks`: the run has allocator blocks (a retained object's `cached`).
nlohmann::json rangeJson(const IterationRange& range, bool blocks);

// One range (named `c`): its numbers and spreads checked, its step's shape not yet (checkSteps).
IterationRange readRange(const common::JsonFields& f, const nlohmann::json& j,
                         const std::string& c);

// Every iteration of each trend range of `r` (named `c`) expands from its like row, which must be
// kept whole (stepFault); the first that does not is a memfloor::Error.
void checkSteps(const common::JsonFields& f, const Report& r, const std::string& c);

}  // namespace memfloor::report
