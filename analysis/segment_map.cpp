// SegmentMap: per-device interval lookups of the live segments.
#include "analysis/segment_map.h"

#include <algorithm>

namespace memfloor::analysis {

void SegmentMap::open(uint32_t device, uint64_t address, uint64_t size) {
  // Sizes are untrusted: a segment reaching past the address space ends with it.
  const uint64_t end = size > UINT64_MAX - address ? UINT64_MAX : address + size;
  nextGeneration();  // it may replace a remembered segment
  by_device_[device][address] = end;
}

void SegmentMap::close(uint32_t device, uint64_t address) {
  nextGeneration();
  auto it = by_device_.find(device);
  if (it != by_device_.end()) it->second.erase(address);
}

bool SegmentMap::coversSlow(uint32_t device, uint64_t address, uint64_t size) {
  auto it = by_device_.find(device);
  if (it == by_device_.end()) return false;
  const std::map<uint64_t, uint64_t>& segments = it->second;
  if (size > UINT64_MAX - address) return false;  // past the address space: no segment holds it
  const uint64_t end = address + std::max<uint64_t>(size, 1);
  // The last segment starting at or before the block's first byte, then the ones after it, as
  // long as each starts where the covered range has reached. Live segments do not overlap (the
  // driver hands out an address once); where a faulty trace's do, an earlier one is not looked at.
  auto s = segments.upper_bound(address);
  const uint64_t limit = s == segments.end() ? UINT64_MAX : s->first;
  if (s == segments.begin()) return false;
  --s;
  uint64_t reached = s->second;
  if (reached <= address) return false;
  if (reached >= end) {
    if (cache_.empty()) cache_.resize(kCacheEntries);
    cache_[(address >> kRegionBits) & (kCacheEntries - 1)] = {s->first, std::min(limit, s->second),
                                                              s->second, generation_, device};
    return true;
  }
  for (++s; reached < end && s != segments.end() && s->first <= reached; ++s) {
    reached = std::max(reached, s->second);
  }
  return reached >= end;
}

size_t SegmentMap::size() const {
  size_t n = 0;
  for (const auto& [device, segments] : by_device_) n += segments.size();
  return n;
}

}  // namespace memfloor::analysis
