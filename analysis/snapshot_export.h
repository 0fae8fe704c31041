// A trace as a PyTorch memory snapshot (trace/torch_snapshot.h's form) for PyTorch's memory viewer:
// each allocation with its frames, its class as the viewer's category and the holder a census
// named in its user_metadata; the allocator's state at the trace's end; memfloor's iterations
// (docs/torch-snapshots.md, "Export").
#pragma once

#include <cstdint>
#include <string>

#include "analysis/analysis.h"
#include "trace/torch_snapshot.h"

namespace memfloor::analysis {

struct SnapshotExport {
  trace::TorchSnapshot snapshot;
  Report report;  // the analysis the classes come from
  // Allocations of memory the viewer does not draw (pinned, managed, static, pools), left out.
  uint64_t left_out = 0;
  uint64_t left_out_bytes = 0;
  // Blocks live at the end in no live segment of their device: in the trace, not in the state.
  uint64_t blocks_outside_segments = 0;
};

// Analyses the trace at `path` (any form analyzeTrace reads, a snapshot among them) with `options`
// (every iteration kept, a ledger of its allocations) and builds its snapshot. Kind device
// allocations are the segments and kind block the blocks; a device without blocks has each
// allocation written as a segment and the one block that fills it (SnapshotExtension's mirrored
// devices). Throws memfloor::Error naming the path on unusable input.
SnapshotExport exportTorchSnapshot(const std::string& path, AnalysisOptions options);

}  // namespace memfloor::analysis
