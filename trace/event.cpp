// Event -> Record.
#include "trace/event.h"

namespace memfloor::trace {

void toRecord(const Event& e, Record& out) {
  switch (e.type) {
    case EventType::kAlloc:
    case EventType::kFree: {
      const bool alloc = e.type == EventType::kAlloc;
      MemoryEvent* m = alloc ? static_cast<MemoryEvent*>(std::get_if<Alloc>(&out))
                             : static_cast<MemoryEvent*>(std::get_if<Free>(&out));
      if (m == nullptr) [[unlikely]] {
        m = alloc ? static_cast<MemoryEvent*>(&out.emplace<Alloc>())
                  : static_cast<MemoryEvent*>(&out.emplace<Free>());
      }
      m->timestamp = e.timestamp;
      m->address = e.address;
      m->size = e.size;
      m->thread = e.thread;
      m->correlation = e.correlation;
      m->stream = e.stream;
      m->stack = e.stack;
      m->device = e.device;
      m->kind = static_cast<MemoryKind>(e.kind);
      m->flags = e.flags;
      return;
    }
    case EventType::kPool:
      out.emplace<PoolEvent>(toPoolEvent(e));
      return;
    case EventType::kMarker:
      out.emplace<Marker>(toMarker(e));
      return;
    case EventType::kCensus:
      out.emplace<Census>(toCensus(e));
      return;
    case EventType::kHeld:
      out.emplace<Held>(toHeld(e));
      return;
    case EventType::kStep:
      out.emplace<Step>(toStep(e));
      return;
  }
}

}  // namespace memfloor::trace
