// Writes a TorchSnapshot as PyTorch's memory viewer reads it (pytorch.org/memory_viz,
// torch.cuda._memory_viz): the mirror of trace/torch_snapshot_reader.h, through
// common::PickleWriter (docs/torch-snapshots.md, "Export").
#pragma once

#include <ostream>

#include "trace/torch_snapshot.h"

namespace memfloor::trace {

enum class SnapshotForm : uint8_t {
  // A dict of `segments`, `device_traces`, `allocator_settings` and, when set, `memfloor`
  // (SnapshotExtension): what _dump_snapshot writes from PyTorch 2.1 on and the viewer opens.
  kDict,
  // PyTorch 1.13's torch.cuda.memory_snapshot(): a list of segments, each block in use with a
  // `history` of its allocation; no trace. What 1.13's `python -m torch.cuda._memory_viz` reads.
  kSegmentList,
};

// Writes `snapshot` to `out` as a pickle. Each frame and each stack's frame list is written once
// and referred to after, as PyTorch shares them. A segment's allocated, active and requested sizes
// are summed from its blocks. The stream's errors are the caller's to check.
void writeTorchSnapshot(const TorchSnapshot& snapshot, std::ostream& out, SnapshotForm form);

}  // namespace memfloor::trace
