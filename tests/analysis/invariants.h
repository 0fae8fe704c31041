// The invariants of architecture.md / docs/design.md, asserted on every report a test builds.
#pragma once

#include <ostream>

#include "analysis/merged_report.h"
#include "analysis/report.h"

namespace memfloor::report {

// For Catch2's messages (found by argument-dependent lookup, hence this namespace).
inline std::ostream& operator<<(std::ostream& out, const Tally& t) {
  return out << "{" << t.bytes << " B, " << t.count << "}";
}
inline std::ostream& operator<<(std::ostream& out, const RetainedTally& r) {
  return out << "{inter " << r.inter_iteration << ", leak " << r.leak << ", persistent "
             << r.persistent << "}";
}

inline std::ostream& operator<<(std::ostream& out, const PeakTally& p) {
  return out << "{iteration " << p.iteration << ", earlier " << p.earlier_iteration << ", inter "
             << p.inter_iteration << ", leak " << p.leak << ", persistent " << p.persistent << "}";
}

}  // namespace memfloor::report

namespace memfloor::analysis::test {

// For every iteration and memory: floor <= live at start/end <= peak; idle floor <= live at
// iteration end; retained <= idle floor; phases chain (one's end is the next one's start); the
// peak's classes sum to the peak, its sites to at most each class; a census's held and not-seen
// bytes sum to its allocated ones, its classes and holders to held. Over the trace: allocated -
// freed = live at end, and the last window ends at that live.
void checkInvariants(const Report& report);

// Every run's invariants; one label per run; the worst run names a window of one of the runs and
// that window's idle floor.
void checkInvariants(const MergedReport& report);

// Every iteration's idle window read from `folded` (windowOf: rows kept whole, ranges expanded) is
// the row of it in `whole`, the same run analyzed without compaction: floor, retained, explained
// bytes and top sites, exactly.
void checkWindowsExpand(const Report& folded, const Report& whole);

// The row of one device and memory kind in an iteration (fails the test when there is none).
const IterationMemory& memoryOf(const IterationRow& row, uint32_t device = 0,
                                trace::MemoryKind kind = trace::MemoryKind::kDevice);

}  // namespace memfloor::analysis::test
