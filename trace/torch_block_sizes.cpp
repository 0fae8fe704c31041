// TorchBlockSizes: the caching allocator's block sizes from its segments and blocks in use.
#include "trace/torch_block_sizes.h"

namespace memfloor::trace {

uint64_t TorchBlockSizes::rounded(uint64_t requested) {
  if (requested < kMinBlockSize) return kMinBlockSize;
  const uint64_t blocks = requested / kMinBlockSize + (requested % kMinBlockSize != 0 ? 1 : 0);
  return blocks > UINT64_MAX / kMinBlockSize ? requested : blocks * kMinBlockSize;
}

void TorchBlockSizes::addSegment(uint64_t address, uint64_t size, bool expandable) {
  const uint64_t end = address + size < address ? UINT64_MAX : address + size;
  segments_[address] = Segment{end, expandable};
}

void TorchBlockSizes::removeSegment(uint64_t address) { segments_.erase(address); }

const TorchBlockSizes::Segment* TorchBlockSizes::segmentOf(uint64_t address,
                                                           uint64_t* start) const {
  auto it = segments_.upper_bound(address);
  if (it == segments_.begin()) return nullptr;
  --it;
  if (address >= it->second.end) return nullptr;
  *start = it->first;
  return &it->second;
}

uint64_t TorchBlockSizes::allocate(uint64_t address, uint64_t requested) {
  const uint64_t size = rounded(requested);
  uint64_t start = 0;
  const Segment* segment = segmentOf(address, &start);
  uint64_t taken = size;
  if (segment != nullptr) {
    uint64_t end = segment->end;
    const auto next = in_use_.upper_bound(address);
    if (next != in_use_.end() && next->first < end) end = next->first;
    const uint64_t free_size = end - address;  // the free block the request took
    if (free_size > size) {
      const uint64_t remaining = free_size - size;
      const bool small_pool = requested <= kSmallSize;
      const bool split = small_pool || segment->expandable || settings_.expandable_segments
                             ? remaining >= kMinBlockSize
                             : size < settings_.max_split_size && remaining > kSmallSize;
      if (!split) taken = free_size;
    }
  }
  in_use_[address] = taken;
  return taken;
}

uint64_t TorchBlockSizes::release(uint64_t address) {
  const auto it = in_use_.find(address);
  if (it == in_use_.end()) return 0;
  const uint64_t size = it->second;
  in_use_.erase(it);
  return size;
}

uint64_t TorchBlockSizes::sizeAt(uint64_t address) const {
  const auto it = in_use_.find(address);
  return it == in_use_.end() ? 0 : it->second;
}

}  // namespace memfloor::trace
