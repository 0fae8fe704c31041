// SegmentMap: per-device interval lookups of the live segments.
#include "analysis/segment_map.h"

#include <algorithm>
#include <iterator>

namespace memfloor::analysis {

void SegmentMap::open(uint32_t device, uint64_t address, uint64_t size) {
  // Sizes are untrusted: a segment reaching past the address space ends with it.
  const uint64_t end = size > UINT64_MAX - address ? UINT64_MAX : address + size;
  if (cache_.empty()) cache_.resize(kCacheEntries);  // what coversSlow remembers needs a segment
  std::map<uint64_t, uint64_t>& segments = by_device_[device];
  // Inside a live segment (at its address: replacing it), the segment changes what a check from
  // there on starts with.
  const auto next = segments.upper_bound(address);
  if (next != segments.begin() && std::prev(next)->second > address) nextGeneration();
  segments.insert_or_assign(address, end);
}

void SegmentMap::close(uint32_t device, uint64_t address) {
  auto it = by_device_.find(device);
  if (it != by_device_.end() && it->second.erase(address) > 0) nextGeneration();
}

bool SegmentMap::coversSlow(uint32_t device, uint64_t address, uint64_t size) {
  ++misses_;
  auto it = by_device_.find(device);
  if (it == by_device_.end()) return false;
  const std::map<uint64_t, uint64_t>& segments = it->second;
  if (size > UINT64_MAX - address) return false;  // past the address space: no segment holds it
  const uint64_t end = address + std::max<uint64_t>(size, 1);
  // The last segment starting at or before the block's first byte, then the ones after it, as
  // long as each starts where the covered range has reached. Live segments do not overlap (the
  // driver hands out an address once); where a faulty trace's do, an earlier one is not looked at.
  auto s = segments.upper_bound(address);
  const uint64_t next_start = s == segments.end() ? UINT64_MAX : s->first;
  if (s == segments.begin()) return false;
  --s;
  const auto first = s;
  uint64_t reached = s->second;
  if (reached <= address) return false;
  for (++s; reached < end && s != segments.end() && s->first <= reached; ++s) {
    reached = std::max(reached, s->second);
  }
  if (reached < end) return false;
  cache_[(address >> kRegionBits) & (kCacheEntries - 1)] = {
      first->first, std::min(next_start, first->second), reached, generation_, device};
  return true;
}

size_t SegmentMap::size() const {
  size_t n = 0;
  for (const auto& [device, segments] : by_device_) n += segments.size();
  return n;
}

}  // namespace memfloor::analysis
