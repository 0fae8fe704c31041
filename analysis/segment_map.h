// SegmentMap: the live device allocations of each device by address, to tell whether an
// allocator's block lies inside the memory it reserved (docs/design.md, "Allocator blocks").
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <unordered_map>

namespace memfloor::analysis {

// Segments are kept per device, ordered by address (start -> end). A block is inside when the
// segments live at its allocation cover all of its bytes: one segment, or several adjacent ones
// (PyTorch's expandable segments map a block's range in pieces). open, close and a covered check
// that one segment answers cost O(log segments); a check walks one more step per adjacent piece.
class SegmentMap {
 public:
  // A segment at [address, address + size) is live; one already open at the address is replaced.
  void open(uint32_t device, uint64_t address, uint64_t size);
  // The segment at address is gone; an address with no segment is ignored.
  void close(uint32_t device, uint64_t address);
  // Whether live segments of `device` cover [address, address + size); a block of size 0 is
  // covered when a segment holds its address.
  bool covers(uint32_t device, uint64_t address, uint64_t size) const;
  // Live segments over all devices.
  size_t size() const;

 private:
  std::unordered_map<uint32_t, std::map<uint64_t, uint64_t>> by_device_;  // start -> end
};

}  // namespace memfloor::analysis
