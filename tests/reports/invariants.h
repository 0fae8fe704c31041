// The invariants of architecture.md / docs/design.md, asserted on every report a test builds.
#pragma once

#include "reports/report.h"

namespace memfloor::reports::test {

// For every iteration and memory: floor <= live at start/end <= peak; idle floor <= live at
// iteration end; retained <= idle floor; phases chain (one's end is the next one's start). Over
// the trace: allocated - freed = live at end, and the last window ends at that live.
void checkInvariants(const Report& report);

// The row of one device and memory kind in an iteration (fails the test when there is none).
const IterationMemory& memoryOf(const IterationRow& row, uint32_t device = 0,
                                trace::MemoryKind kind = trace::MemoryKind::kDevice);

}  // namespace memfloor::reports::test
