// Event: any timed record (allocation, free, pool event, marker) in one compact, flat form. The
// time-order reader sorts, merges and delivers these (TimeOrderReader::nextBatch), so that a
// replay reads an event's fields without a variant in between.
#pragma once

#include <cstdint>

#include "trace/records.h"

namespace memfloor::trace {

enum class EventType : uint8_t { kAlloc, kFree, kPool, kMarker, kCensus, kHeld, kStep };

// 56 bytes. Pool events, markers, censuses, held storages and steps keep their fields in the memory
// event's slots, as named. The order is the decoder's (trace/chunk_decoder.cpp): address, size and
// correlation as a packed record holds them, then a memory context's fields as the chunk's context
// table holds them, so that each group is copied whole.
struct Event {
  uint64_t timestamp;
  uint64_t address;      // marker: id; census: objects; step: step
  uint64_t size;         // census: duration_ns; step: optimizer_steps
  uint64_t correlation;  // pool: utilized
  uint64_t thread;       // census: storages; held: holders
  uint32_t stream;       // census: step; held: via
  uint32_t device;       // marker: domain
  EventType type;
  uint8_t kind;    // MemoryKind's value (unchecked: a file may hold one this build does not
                   // know); pool: PoolEventType; marker: MarkerType; census: complete; held: role;
                   // step: StepPhase
  uint8_t flags;   // pool: pool_type
  uint32_t stack;  // marker: name; held: path
};

inline Event toEvent(const MemoryEvent& e, EventType type) {
  return {.timestamp = e.timestamp,
          .address = e.address,
          .size = e.size,
          .correlation = e.correlation,
          .thread = e.thread,
          .stream = e.stream,
          .device = e.device,
          .type = type,
          .kind = static_cast<uint8_t>(e.kind),
          .flags = e.flags,
          .stack = e.stack};
}
inline Event toEvent(const Alloc& a) { return toEvent(a, EventType::kAlloc); }
inline Event toEvent(const Free& f) { return toEvent(f, EventType::kFree); }
inline Event toEvent(const PoolEvent& p) {
  return {.timestamp = p.timestamp,
          .address = p.address,
          .size = p.size,
          .correlation = p.utilized,
          .thread = 0,
          .stream = 0,
          .device = p.device,
          .type = EventType::kPool,
          .kind = static_cast<uint8_t>(p.type),
          .flags = p.pool_type,
          .stack = 0};
}
inline Event toEvent(const Marker& m) {
  return {.timestamp = m.timestamp,
          .address = m.id,
          .size = 0,
          .correlation = 0,
          .thread = m.thread,
          .stream = 0,
          .device = m.domain,
          .type = EventType::kMarker,
          .kind = static_cast<uint8_t>(m.type),
          .flags = 0,
          .stack = m.name};
}

inline Event toEvent(const Census& c) {
  return {.timestamp = c.timestamp,
          .address = c.objects,
          .size = c.duration_ns,
          .correlation = 0,
          .thread = c.storages,
          .stream = c.step,
          .device = c.device,
          .type = EventType::kCensus,
          .kind = static_cast<uint8_t>(c.complete),
          .flags = 0,
          .stack = 0};
}
inline Event toEvent(const Held& h) {
  return {.timestamp = h.timestamp,
          .address = h.address,
          .size = h.size,
          .correlation = 0,
          .thread = h.holders,
          .stream = h.via,
          .device = h.device,
          .type = EventType::kHeld,
          .kind = static_cast<uint8_t>(h.role),
          .flags = 0,
          .stack = h.path};
}

inline Event toEvent(const Step& s) {
  return {.timestamp = s.timestamp,
          .address = s.step,
          .size = s.optimizer_steps,
          .correlation = 0,
          .thread = s.thread,
          .stream = 0,
          .device = 0,
          .type = EventType::kStep,
          .kind = static_cast<uint8_t>(s.phase),
          .flags = 0,
          .stack = 0};
}

inline PoolEvent toPoolEvent(const Event& e) {
  return {e.timestamp,   e.address, e.size,
          e.correlation, e.device,  static_cast<PoolEventType>(e.kind),
          e.flags};
}
inline Marker toMarker(const Event& e) {
  return {e.timestamp, e.thread, e.address, e.stack, e.device, static_cast<MarkerType>(e.kind)};
}

inline Census toCensus(const Event& e) {
  return {e.timestamp, e.address, e.size, e.thread, e.device, e.stream, e.kind != 0};
}
inline Held toHeld(const Event& e) {
  return {e.timestamp,
          e.address,
          e.size,
          e.stack,
          e.stream,
          e.device,
          static_cast<uint32_t>(e.thread),
          static_cast<HeldRole>(e.kind)};
}

inline Step toStep(const Event& e) {
  return {e.timestamp, e.thread, static_cast<uint32_t>(e.address), static_cast<uint32_t>(e.size),
          static_cast<StepPhase>(e.kind)};
}

// The record an event stands for, reusing out's storage when it holds the same type.
void toRecord(const Event& event, Record& out);

}  // namespace memfloor::trace
