// A run's censuses in brief: how many were taken and used, and what the last one found.
#pragma once

#include <cstdint>

#include "report/model.h"

namespace memfloor::report {

// What report.json's census_summary holds (docs/report-schema.md, "Views").
struct CensusSummary {
  uint32_t taken = 0;           // Report::census.taken
  uint32_t windows = 0;         // idle windows with a census (iterations[].held_by)
  uint32_t last_iteration = 0;  // the last such window's iteration; 0: none
  uint64_t allocated = 0;       // its censuses, summed over devices: allocated bytes
  uint64_t held = 0;            // of them, held by named Python paths
  uint64_t holders = 0;         // holders listed and left out
};

CensusSummary censusSummary(const Report& run);

}  // namespace memfloor::report
