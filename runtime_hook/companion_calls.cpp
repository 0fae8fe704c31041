// Block events and Python frames from the companion -> trace records.
#include "runtime_hook/companion_calls.h"

#include "runtime_hook/call_stamp.h"

namespace memfloor::hook {

ClockPair clockPairNow() {
  ClockPair pair;
  pair.unix_ns = wallNow();  // first: the pair's two readings are at most a call apart
  pair.cupti_ns = cuptiNow();
  return pair;
}

uint64_t toCuptiTime(uint64_t unix_ns, const ClockPair& now) {
  if (now.cupti_ns >= now.unix_ns) return unix_ns + (now.cupti_ns - now.unix_ns);
  uint64_t behind = now.unix_ns - now.cupti_ns;
  return unix_ns > behind ? unix_ns - behind : 0;
}

std::optional<trace::Record> blockRecord(const memfloor_block_event_v1& event,
                                         const ClockPair& now) {
  trace::MemoryEvent e;
  e.timestamp = toCuptiTime(event.unix_ns, now);
  e.address = event.address;
  e.size = event.size;
  e.stream = event.stream;
  e.stack = event.stack;
  e.device = event.device;
  e.kind = trace::MemoryKind::kBlock;
  if (event.type == MEMFLOOR_BLOCK_ALLOC) return trace::Record{trace::Alloc{e}};
  if (event.type == MEMFLOOR_BLOCK_FREE) return trace::Record{trace::Free{e}};
  return std::nullopt;
}

trace::Census censusRecord(const memfloor_census_header_v1& census, uint64_t count,
                           const ClockPair& now) {
  trace::Census c;
  c.timestamp = toCuptiTime(census.unix_ns, now);
  c.objects = census.objects;
  c.duration_ns = census.duration_ns;
  c.storages = count;
  c.device = census.device;
  c.step = census.step;
  c.complete = census.complete != 0;
  return c;
}

trace::Held heldRecord(const memfloor_held_v1& held, uint32_t device, uint64_t timestamp) {
  trace::Held h;
  h.timestamp = timestamp;
  h.address = held.address;
  h.size = held.size;
  h.device = device;
  h.holders = held.holders > 0 ? held.holders : 1;
  h.role = held.role < trace::kHeldRoleCount ? static_cast<trace::HeldRole>(held.role)
                                             : trace::HeldRole::kOther;
  return h;
}

std::optional<trace::Step> stepRecord(const memfloor_step_event_v1& step, uint64_t thread,
                                      const ClockPair& now) {
  if (step.phase >= trace::kStepPhaseCount) return std::nullopt;
  trace::Step s;
  s.timestamp = toCuptiTime(step.unix_ns, now);
  s.thread = thread;
  s.step = step.step;
  s.optimizer_steps = step.phase == MEMFLOOR_STEP_END ? step.optimizer_steps : 0;
  s.phase = static_cast<trace::StepPhase>(step.phase);
  return s;
}

std::vector<StackTable::PythonFrame> pythonFrames(const memfloor_python_frame_v1* frames,
                                                  uint32_t count) {
  std::vector<StackTable::PythonFrame> out;
  if (frames == nullptr) return out;
  out.reserve(count);
  for (uint32_t i = 0; i < count; ++i) {
    StackTable::PythonFrame f;
    if (frames[i].file != nullptr) f.file = frames[i].file;
    if (frames[i].function != nullptr) f.function = frames[i].function;
    f.line = frames[i].line;
    out.push_back(f);
  }
  return out;
}

}  // namespace memfloor::hook
