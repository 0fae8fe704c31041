// What the report's views say of each run, written into report.json beside the run's own fields,
// so that a reader draws them instead of deriving them again (docs/report-schema.md, "Views").
#pragma once

#include <nlohmann/json.hpp>

#include "report/merged_report.h"
#include "report/model.h"

namespace memfloor::report {

// The added keys of one run: iteration_count, devices_with_blocks, reserved_levels, entries,
// steady_headline and headline_peak.
nlohmann::json runViewsJson(const Report& run);

// Each run of `doc` (a report.json document that `m` was read from) with runViewsJson of m's run
// written over its keys; the rest of the document as it was.
void putViews(nlohmann::json& doc, const MergedReport& m);

}  // namespace memfloor::report
