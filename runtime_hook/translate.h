// CUPTI activity records -> trace records. The only file that knows CUPTI's record layouts:
// CUDA 13 delivers CUpti_ActivityMemory4 for MEMORY2 (12.x: CUpti_ActivityMemory3, change the
// aliases below), CUpti_ActivityMemoryPool3 and CUpti_ActivityDevice5.
#pragma once

#include <cupti.h>

#include <cstdint>
#include <variant>

#include "trace/records.h"

namespace memfloor::hook {

using CuptiMemoryRecord = CUpti_ActivityMemory4;
using CuptiPoolRecord = CUpti_ActivityMemoryPool3;
using CuptiDeviceRecord = CUpti_ActivityDevice5;

// What one CUPTI record becomes. std::monostate: nothing to write (a kind we do not trace, or a
// record that carries no allocation).
using Translated = std::variant<std::monostate, trace::Alloc, trace::Free, trace::PoolEvent>;

// MEMORY2 -> Alloc/Free; MEMORY_POOL -> PoolEvent. Thread, stack and correlation joins are the
// caller's business (correlation is copied; thread and stack are left 0).
Translated translate(const CUpti_Activity& record);

trace::MemoryKind toMemoryKind(CUpti_ActivityMemoryKind kind);

// CUPTI's "no stream" value becomes 0; real stream ids are kept.
uint32_t toStream(uint32_t cupti_stream_id);

}  // namespace memfloor::hook
