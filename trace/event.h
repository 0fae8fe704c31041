// Event: any timed record (allocation, free, pool event, marker) in one compact, flat form. The
// time-order reader sorts, merges and delivers these (TimeOrderReader::nextBatch), so that a
// replay reads an event's fields without a variant in between.
#pragma once

#include <cstdint>

#include "trace/records.h"

namespace memfloor::trace {

enum class EventType : uint8_t { kAlloc, kFree, kPool, kMarker };

// 56 bytes. Pool events and markers keep their fields in the memory event's slots, as named.
struct Event {
  uint64_t timestamp;
  uint64_t address;  // marker: id
  uint64_t size;
  uint64_t thread;
  uint64_t correlation;  // pool: utilized
  uint32_t stream;
  uint32_t stack;   // marker: name
  uint32_t device;  // marker: domain
  EventType type;
  uint8_t kind;   // MemoryKind's value (unchecked: a file may hold one this build does not
                  // know); pool: PoolEventType; marker: MarkerType
  uint8_t flags;  // pool: pool_type
};

inline Event toEvent(const MemoryEvent& e, EventType type) {
  return {e.timestamp, e.address, e.size,   e.thread, e.correlation,
          e.stream,    e.stack,   e.device, type,     static_cast<uint8_t>(e.kind),
          e.flags};
}
inline Event toEvent(const Alloc& a) { return toEvent(a, EventType::kAlloc); }
inline Event toEvent(const Free& f) { return toEvent(f, EventType::kFree); }
inline Event toEvent(const PoolEvent& p) {
  return {.timestamp = p.timestamp,
          .address = p.address,
          .size = p.size,
          .thread = 0,
          .correlation = p.utilized,
          .stream = 0,
          .stack = 0,
          .device = p.device,
          .type = EventType::kPool,
          .kind = static_cast<uint8_t>(p.type),
          .flags = p.pool_type};
}
inline Event toEvent(const Marker& m) {
  return {.timestamp = m.timestamp,
          .address = m.id,
          .size = 0,
          .thread = m.thread,
          .correlation = 0,
          .stream = 0,
          .stack = m.name,
          .device = m.domain,
          .type = EventType::kMarker,
          .kind = static_cast<uint8_t>(m.type),
          .flags = 0};
}

inline PoolEvent toPoolEvent(const Event& e) {
  return {e.timestamp,   e.address, e.size,
          e.correlation, e.device,  static_cast<PoolEventType>(e.kind),
          e.flags};
}
inline Marker toMarker(const Event& e) {
  return {e.timestamp, e.thread, e.address, e.stack, e.device, static_cast<MarkerType>(e.kind)};
}

// The record an event stands for, reusing out's storage when it holds the same type.
void toRecord(const Event& event, Record& out);

}  // namespace memfloor::trace
