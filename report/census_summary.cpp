// A run's censuses in brief, read off its iterations' held_by.
#include "report/census_summary.h"

namespace memfloor::report {

CensusSummary censusSummary(const Report& run) {
  CensusSummary out;
  out.taken = run.census.taken;
  for (const IterationRow& row : run.iterations) {
    if (row.held_by.empty()) continue;
    ++out.windows;
    out.last_iteration = row.index;
    out.allocated = out.held = out.holders = 0;
    for (const HeldBy& h : row.held_by) {
      out.allocated += h.allocated;
      out.held += h.held.bytes;
      out.holders += h.holders.size() + h.holders_left_out.count;
    }
  }
  return out;
}

}  // namespace memfloor::report
