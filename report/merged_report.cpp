// MergedReport's views: what each finding explains at most.
#include "report/merged_report.h"

#include <algorithm>

namespace memfloor::report {

uint64_t maxExplainedBytes(const MergedReport& report, uint32_t finding) {
  uint64_t most = 0;
  for (const Report& r : report.runs) {
    for (const Explained& e : r.explained) {
      if (e.finding == finding) most = std::max(most, e.retained.bytes);
    }
  }
  return most;
}

}  // namespace memfloor::report
