// The two levels of a caching allocator on one device (PyTorch's): the segments it reserved from
// CUDA (kind device) and the blocks it hands out inside them (kind block). Where a device has
// blocks, its headline idle floor is the allocated one, with the reserved one beside it.
#pragma once

#include <cstdint>

#include "report/model.h"

namespace memfloor::report {

// Whether the run recorded allocator blocks on `device` (a block timeline), or on any device.
bool hasBlocks(const Report& run, uint32_t device);
bool hasBlocks(const Report& run);

// The memory a device's headline floor is read from: its blocks where the run has blocks on it
// ("allocated"), else its device memory.
MemoryKey headlineKey(const Report& run, uint32_t device);

// Whether `key` is a caching allocator's reserved level: device memory on a device with blocks.
// What the allocator keeps reserved there is its cache (docs/design.md, "Allocator blocks"): its
// trend is reported, but the run's verdict and the leak class follow the allocated level.
bool isReservedLevel(const Report& run, const MemoryKey& key);

// The run's steady floor of `key` (Report::steady), or nullptr when the run has no such memory.
const SteadyFloor* steadyFloorOf(const Report& run, const MemoryKey& key);

}  // namespace memfloor::report
