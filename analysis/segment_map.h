// SegmentMap: the live device allocations of each device by address, to tell whether an
// allocator's block lies inside the memory it reserved (docs/design.md, "Allocator blocks").
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <unordered_map>
#include <vector>

namespace memfloor::analysis {

// Segments are kept per device, ordered by address (start -> end). A block is inside when the
// segments live at its allocation cover all of its bytes: one segment, or several adjacent ones
// (PyTorch's expandable segments map a block's range in pieces). open, close and a covered check
// that one segment answers cost O(log segments); a check walks one more step per adjacent piece.
// Blocks come many to a segment, so the covered range found for a block is remembered, by the
// block's 4 MiB region of addresses, in a direct-mapped cache: a check that hits it costs a few
// compares. A segment that closes, or one that opens inside a live one, empties the cache (a
// counter moves on); one that opens elsewhere keeps it, as it changes no answer the cache gives
// (it adds coverage past the remembered ranges, and no remembered block starts in it).
class SegmentMap {
 public:
  // A segment at [address, address + size) is live; one already open at the address is replaced.
  void open(uint32_t device, uint64_t address, uint64_t size);
  // The segment at address is gone; an address with no segment is ignored.
  void close(uint32_t device, uint64_t address);
  // Whether live segments of `device` cover [address, address + size); a block of size 0 is
  // covered when a segment holds its address.
  bool covers(uint32_t device, uint64_t address, uint64_t size) {
    if (!cache_.empty()) [[likely]] {
      const Cached& c = cache_[(address >> kRegionBits) & (kCacheEntries - 1)];
      // address in [start, limit) as one unsigned compare (empty entries have start == limit).
      if (address - c.start < c.limit - c.start && size <= c.end - address &&
          c.generation == generation_ && c.device == device) {
        return true;
      }
    }
    return coversSlow(device, address, size);
  }
  // Live segments over all devices.
  size_t size() const;
  // Checks the cache did not answer (what a test of the cache counts).
  uint64_t misses() const { return misses_; }

 private:
  // 4 MiB regions, 4096 entries (128 KB): 16 GiB of blocks before two regions share an entry.
  static constexpr unsigned kRegionBits = 22;
  static constexpr size_t kCacheEntries = 4096;
  // Blocks of `device` at an address in [start, limit) are covered up to `end`, as of
  // `generation`. start is the segment that a check from such an address starts with: the last
  // one starting at or before it. limit is where another segment starts, or that segment's end,
  // whichever comes first; end is where the adjacent segments walked from it reached.
  struct Cached {
    uint64_t start = 0, limit = 0, end = 0;
    uint32_t generation = 0;  // 0: never written
    uint32_t device = 0;
  };
  bool coversSlow(uint32_t device, uint64_t address, uint64_t size);
  void nextGeneration() {
    // After 2^32 - 1 changes an old entry could look current again: start over.
    if (++generation_ == 0) {
      cache_.assign(cache_.size(), Cached{});
      generation_ = 1;
    }
  }

  std::unordered_map<uint32_t, std::map<uint64_t, uint64_t>> by_device_;  // start -> end
  std::vector<Cached> cache_;  // allocated at the first open: a run without blocks opens none
  uint32_t generation_ = 1;    // entries of another generation are empty (0: never written)
  uint64_t misses_ = 0;
};

}  // namespace memfloor::analysis
