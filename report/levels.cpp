// The two levels of a caching allocator: which memory of a run heads a device's floors.
#include "report/levels.h"

#include <algorithm>

namespace memfloor::report {

bool hasBlocks(const Report& run, uint32_t device) {
  const MemoryKey blocks{device, trace::MemoryKind::kBlock};
  return std::any_of(run.memory.begin(), run.memory.end(),
                     [&](const MemorySummary& m) { return m.key == blocks; });
}

bool hasBlocks(const Report& run) {
  return std::any_of(run.memory.begin(), run.memory.end(), [](const MemorySummary& m) {
    return m.key.kind == trace::MemoryKind::kBlock;
  });
}

MemoryKey headlineKey(const Report& run, uint32_t device) {
  return {device, hasBlocks(run, device) ? trace::MemoryKind::kBlock : trace::MemoryKind::kDevice};
}

bool isReservedLevel(const Report& run, const MemoryKey& key) {
  return key.kind == trace::MemoryKind::kDevice && hasBlocks(run, key.device);
}

const SteadyFloor* steadyFloorOf(const Report& run, const MemoryKey& key) {
  auto it = std::find_if(run.steady.begin(), run.steady.end(),
                         [&](const SteadyFloor& s) { return s.key == key; });
  return it == run.steady.end() ? nullptr : &*it;
}

}  // namespace memfloor::report
