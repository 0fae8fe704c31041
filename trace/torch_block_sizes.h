// Private to trace/: the size of the block PyTorch's caching allocator handed out for a request,
// which its history does not say (it holds the size asked for, and PyTorch counts the block).
//
// The allocator rounds a request up to a multiple of 512 bytes (kMinBlockSize) and takes the best
// fitting free block, at that block's start; it splits the remainder off when at least 512 bytes
// remain in the small pool (requests up to 1 MiB) or in an expandable segment, and in the large
// pool when more than 1 MiB remains and the block is under max_split_size. Free blocks merge with
// free neighbours, so the free block an allocation took at address a reaches from a to the next
// block still in use (allocated, or freed with its stream's work pending) or its segment's end:
// knowing the blocks in use and the segments is knowing every block's size.
#pragma once

#include <cstdint>
#include <map>

#include "trace/torch_snapshot.h"

namespace memfloor::trace {

class TorchBlockSizes {
 public:
  static constexpr uint64_t kMinBlockSize = 512;
  static constexpr uint64_t kSmallSize = uint64_t{1} << 20;

  explicit TorchBlockSizes(const SnapshotSettings& settings) : settings_(settings) {}

  // The allocator's rounding of a request.
  static uint64_t rounded(uint64_t requested);

  void addSegment(uint64_t address, uint64_t size, bool expandable);
  void removeSegment(uint64_t address);
  // A block in use whose size is known (the allocator's state, or a block the trace starts with).
  void addBlock(uint64_t address, uint64_t size) { in_use_[address] = size; }
  // The block a request of `requested` bytes took at `address`, now in use; its size.
  uint64_t allocate(uint64_t address, uint64_t requested);
  // The block at `address` is free again (free_completed); its size, or 0 if none was in use.
  uint64_t release(uint64_t address);
  // The size of the block in use at `address`, 0 if none.
  uint64_t sizeAt(uint64_t address) const;

 private:
  struct Segment {
    uint64_t end = 0;
    bool expandable = false;
  };
  const Segment* segmentOf(uint64_t address, uint64_t* start) const;

  SnapshotSettings settings_;
  std::map<uint64_t, Segment> segments_;  // by start
  std::map<uint64_t, uint64_t> in_use_;   // block start -> size
};

}  // namespace memfloor::trace
