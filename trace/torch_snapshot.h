// A PyTorch memory snapshot (torch.cuda.memory._snapshot(), the pickle _dump_snapshot writes, or
// the same data as JSON) as the records of a trace, so that the analysis reads it as it reads a
// trace (docs/torch-snapshots.md).
//
// The snapshot's device traces become allocations and frees: its blocks (`alloc`,
// `free_completed`) of kind block, its segments (`segment_alloc`/`free`, and `segment_map`/`unmap`
// of expandable segments) of kind device; each entry's frames become a Python stack, and a
// `user_metadata` of `module:<path>` its module frame. The history is a ring of `max_entries`:
// what it dropped is reconciled from the allocator's state at the dump (and from frees of blocks
// the ring no longer shows allocated), placed at the trace's start, and said in a warning the
// report carries. Iterations come from the optimizer's frames: each run of allocations made under
// torch/optim/ ends a training step (step records), and the next allocation begins the next.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "trace/records.h"

namespace memfloor::trace {

// Limits on what a snapshot may name (docs/torch-snapshots.md): device_traces is a list indexed by
// the device, so a device's number is also a length. No machine has more devices than this.
inline constexpr uint32_t kMaxSnapshotDevice = 1023;

// A text many entries and blocks share (a module path, a holder, a category): kept once, however
// many refer to it, as the pickle keeps it once. Compared by its text; empty by default.
class SnapshotLabel {
 public:
  SnapshotLabel() = default;
  SnapshotLabel(std::string_view text)  // NOLINT(google-explicit-constructor): a text is a label
      : text_(text.empty() ? nullptr : std::make_shared<const std::string>(text)) {}
  SnapshotLabel(const char* text) : SnapshotLabel(std::string_view(text)) {}  // NOLINT(google-*)
  SnapshotLabel(const std::string& text) : SnapshotLabel(std::string_view(text)) {}  // NOLINT
  std::string_view view() const { return text_ ? std::string_view(*text_) : std::string_view(); }
  std::string str() const { return std::string(view()); }
  bool empty() const { return !text_; }
  bool operator==(const SnapshotLabel& other) const { return view() == other.view(); }
  bool operator<(const SnapshotLabel& other) const { return view() < other.view(); }

 private:
  std::shared_ptr<const std::string> text_;
};

struct SnapshotFrame {
  std::string file;
  std::string name;
  uint32_t line = 0;
  bool operator==(const SnapshotFrame&) const = default;
};

enum class SnapshotAction : uint8_t {
  kAlloc,
  kFreeRequested,
  kFreeCompleted,
  kSegmentAlloc,
  kSegmentFree,
  kSegmentMap,
  kSegmentUnmap,
  kOom,
  kOther,  // "snapshot", or an action this build does not know: skipped
};

// One entry of a device's trace. `stack` is 1 + an index into TorchSnapshot::stacks, 0 for none.
struct SnapshotEntry {
  SnapshotAction action = SnapshotAction::kOther;
  uint64_t address = 0;  // for kOom: the device's free bytes
  uint64_t size = 0;     // a block's: the size asked for; a segment's: its size
  uint64_t stream = 0;
  uint64_t time_us = 0;
  uint64_t time_ns = 0;  // memfloor's exports: the exact time (0: time_us's)
  uint32_t stack = 0;
  SnapshotLabel module;    // from a user_metadata line "module:<path>", else empty
  SnapshotLabel holder;    // from a user_metadata line "holder:<path>" (memfloor's exports)
  SnapshotLabel category;  // the viewer's colour: memfloor's exports write the retention class
  bool operator==(const SnapshotEntry&) const = default;
};

enum class SnapshotBlockState : uint8_t { kAllocated, kPendingFree, kInactive };

struct SnapshotBlock {
  uint64_t address = 0;
  uint64_t size = 0;            // the block's own size
  uint64_t requested_size = 0;  // what was asked for (0: size)
  SnapshotBlockState state = SnapshotBlockState::kInactive;
  uint32_t stack = 0;
  SnapshotLabel holder;    // as SnapshotEntry's
  SnapshotLabel category;  // as SnapshotEntry's
  bool operator==(const SnapshotBlock&) const = default;
};

struct SnapshotSegment {
  uint32_t device = 0;
  uint64_t address = 0;
  uint64_t total_size = 0;
  uint64_t stream = 0;
  bool expandable = false;
  uint32_t stack = 0;
  std::vector<SnapshotBlock> blocks;  // in address order, tiling the segment
  bool operator==(const SnapshotSegment&) const = default;
};

// The allocator's settings that decide a block's size (c10's CUDAAllocatorConfig).
struct SnapshotSettings {
  bool expandable_segments = false;
  uint64_t max_split_size = UINT64_MAX;  // blocks this large are never split
  bool roundup_power2 = false;           // roundup_power2_divisions set: sizes not modelled
  bool operator==(const SnapshotSettings&) const = default;
};

// What memfloor's exports add under the key "memfloor" (docs/torch-snapshots.md), so that a trace
// exported and read again is the trace: its iterations, which no snapshot holds, and the devices
// whose allocations are written twice, as a segment and as the one block that fills it (a trace
// without allocator blocks), which are read once, as the segments.
struct SnapshotStep {
  bool begin = true;  // a training step's begin, else its end
  uint64_t time_ns = 0;
  bool operator==(const SnapshotStep&) const = default;
};
struct SnapshotExtension {
  std::vector<SnapshotStep> steps;  // in time order; empty: found from the optimizer's frames
  std::vector<uint32_t> mirrored_devices;
  bool operator==(const SnapshotExtension&) const = default;
};

struct TorchSnapshot {
  std::vector<SnapshotFrame> frames;                      // distinct frames
  std::vector<std::vector<uint32_t>> stacks;              // innermost first, indices into frames
  std::vector<std::vector<SnapshotEntry>> device_traces;  // by device, each in time order
  std::vector<SnapshotSegment> segments;                  // the allocator's state at the dump
  SnapshotSettings settings;
  SnapshotExtension memfloor;
  bool operator==(const TorchSnapshot&) const = default;
};

// The snapshot as a binary trace in memory, its rank the one `name` gives. Throws memfloor::Error
// naming `name` when it holds nothing to analyse (no trace entry and no segment).
std::vector<uint8_t> encodeTorchSnapshot(const TorchSnapshot& snapshot, const std::string& name);

}  // namespace memfloor::trace
