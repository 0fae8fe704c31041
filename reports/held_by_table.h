// The table's "held by": what the censuses of the last idle window that has one found.
#pragma once

#include <string>

#include "report/model.h"

namespace memfloor::reports {

// Holders listed per census in the table (report.json lists more).
inline constexpr size_t kTableHolders = 10;

// Appends, for the last idle window with a census, one block per device: allocated, held and not
// seen, then the largest holders. Nothing when no window has a census.
void heldByTable(std::string& out, const report::Report& report);

}  // namespace memfloor::reports
