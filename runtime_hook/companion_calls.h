// The companion's entry points (include/memfloor/companion.h) as trace records: block events on
// CUPTI's clock, Python frames as the stack table's.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "include/memfloor/companion.h"
#include "runtime_hook/stack_table.h"
#include "trace/records.h"

namespace memfloor::hook {

// One moment on both clocks: what moves a wall-clock time onto CUPTI's.
struct ClockPair {
  uint64_t cupti_ns = 0;
  uint64_t unix_ns = 0;
};

ClockPair clockPairNow();

// CUPTI's time of a wall-clock time (0 if it would fall before CUPTI's epoch).
uint64_t toCuptiTime(uint64_t unix_ns, const ClockPair& now);

// The block event as an allocation or a free of kind block; nullopt for an unknown type.
std::optional<trace::Record> blockRecord(const memfloor_block_event_v1& event,
                                         const ClockPair& now);

// The census as a record (its storages: count); heldRecord is one storage of it, without its
// strings (the caller interns path and via).
trace::Census censusRecord(const memfloor_census_header_v1& census, uint64_t count,
                           const ClockPair& now);
trace::Held heldRecord(const memfloor_held_v1& held, uint32_t device, uint64_t timestamp);

// The step event as a record, on the calling thread; nullopt for an unknown phase.
std::optional<trace::Step> stepRecord(const memfloor_step_event_v1& step, uint64_t thread,
                                      const ClockPair& now);

// The frames as the stack table takes them (null strings read as empty).
std::vector<StackTable::PythonFrame> pythonFrames(const memfloor_python_frame_v1* frames,
                                                  uint32_t count);

}  // namespace memfloor::hook
