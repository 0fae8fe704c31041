// Private to trace/: the fields of each record type, read in file order from a FieldCursor.
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>

#include "trace/codec.h"
#include "trace/format.h"
#include "trace/records.h"

namespace memfloor::trace::detail {

// kContext: a memory context, read into the chunk's table and not delivered.
enum class RecordClass { kUnknown, kUntimed, kTimed, kContext };

// The memory contexts of one chunk (format 1.1): what packed alloc/free records leave out.
// In Event's order (trace/event.h): a packed record's event copies thread, stream and device in
// one piece, and kind and flags in another.
struct MemoryContext {
  uint64_t thread = 0;
  uint32_t stream = 0;
  uint32_t device = 0;
  MemoryKind kind = MemoryKind::kDevice;
  uint8_t flags = 0;
  bool defined = false;
};
struct ContextTable {
  MemoryContext entries[kMemoryContexts];
  bool any = false;  // some entry is defined: reset() has work to do
  void reset() {
    if (!any) return;
    for (MemoryContext& c : entries) c.defined = false;
    any = false;
  }
};

// The fixed-width fields of a packed alloc/free payload (kPackedMemoryPayload bytes at p), at the
// offsets of PackedMemoryLayout (trace/format.h); the writer stores them at the same ones.
struct PackedMemory {
  int32_t timestamp_delta;
  uint8_t context;
  uint32_t stack;
  uint64_t address;
  uint64_t size;
  uint64_t correlation;
  [[gnu::always_inline]] static PackedMemory load(const uint8_t* p) {
    using L = PackedMemoryLayout;
    return {static_cast<int32_t>(codec::loadLe32(p + L::kTimestampDeltaAt)),
            p[L::kContextAt],
            codec::loadLe32(p + L::kStackAt),
            codec::loadLe64(p + L::kAddressAt),
            codec::loadLe64(p + L::kSizeAt),
            codec::loadLe64(p + L::kCorrelationAt)};
  }
};

template <typename Cursor>
[[gnu::always_inline]] inline void readPackedMemoryEvent(Cursor& c, const ContextTable& contexts,
                                                         uint64_t& timestamp, MemoryEvent& e) {
  const uint8_t* p = c.p;
  if (c.end - p < static_cast<ptrdiff_t>(kPackedMemoryPayload)) [[unlikely]] {
    c.problems |= Cursor::kEndsEarly;
    c.p = c.end;
    return;
  }
  const PackedMemory m = PackedMemory::load(p);
  timestamp += static_cast<uint64_t>(static_cast<int64_t>(m.timestamp_delta));
  e.timestamp = timestamp;
  const MemoryContext& context = contexts.entries[m.context];
  c.problems |= static_cast<uint32_t>(!context.defined) * Cursor::kNoContext;
  e.stack = m.stack;
  e.address = m.address;
  e.size = m.size;
  e.correlation = m.correlation;
  e.thread = context.thread;
  e.device = context.device;
  e.stream = context.stream;
  e.kind = context.kind;
  e.flags = context.flags;
  c.p = c.end;  // bytes after the known fields: appended by a later minor version
}

// A memory context record: its fields go into the table, nothing is delivered.
template <typename Cursor>
[[gnu::noinline]] void readMemoryContext(Cursor& c, ContextTable& contexts) {
  const uint8_t index = c.u8();
  MemoryContext m;
  m.kind = c.memoryKind();
  m.device = c.u32();
  m.stream = c.u32();
  m.thread = c.u64();
  m.flags = c.u8();
  m.defined = true;
  if (c.finish()) {
    contexts.entries[index] = m;
    contexts.any = true;
  }
}

template <typename Cursor>
[[gnu::always_inline]] inline void readMemoryEvent(Cursor& c, MemoryEvent& e) {
  e.kind = c.memoryKind();
  e.device = c.u32();
  e.stream = c.u32();
  e.address = c.u64();
  e.size = c.u64();
  e.thread = c.u64();
  e.stack = c.u32();
  e.correlation = c.u64();
  e.flags = c.u8();
}

// Every record type but alloc and free: out of line, so that the hot path stays small. One case
// per record type, each a few lines: a table, not a function to split.
template <typename Cursor, typename Visit>
// NOLINTNEXTLINE(readability-function-size)
[[gnu::noinline]] RecordClass decodeOtherRecord(uint8_t code, Cursor& c, uint64_t& timestamp,
                                                Visit& visit) {
  auto emit = [&](auto&& record) {
    if (c.finish()) [[likely]] {
      visit(std::move(record));
    }
  };
  auto timed = [&](auto& record) {
    timestamp += static_cast<uint64_t>(codec::unzigzag(c.u64()));
    record.timestamp = timestamp;
  };
  switch (static_cast<RecordCode>(code)) {
    case RecordCode::kPool: {
      PoolEvent e;
      timed(e);
      e.type = c.template enumValue<PoolEventType>(kPoolEventTypeCount);
      e.device = c.u32();
      e.address = c.u64();
      e.size = c.u64();
      e.utilized = c.u64();
      e.pool_type = c.u8();
      emit(e);
      return RecordClass::kTimed;
    }
    case RecordCode::kMarker: {
      Marker m;
      timed(m);
      m.type = c.template enumValue<MarkerType>(kMarkerTypeCount);
      m.thread = c.u64();
      m.id = c.u64();
      m.name = c.u32();
      m.domain = c.u32();
      emit(m);
      return RecordClass::kTimed;
    }
    case RecordCode::kCensus: {
      Census n;
      timed(n);
      n.device = c.u32();
      n.objects = c.u64();
      n.duration_ns = c.u64();
      n.storages = c.u64();
      n.step = c.u32();
      n.complete = c.u8() != 0;
      emit(n);
      return RecordClass::kTimed;
    }
    case RecordCode::kHeld: {
      Held h;
      timed(h);
      h.device = c.u32();
      h.address = c.u64();
      h.size = c.u64();
      h.path = c.u32();
      h.via = c.u32();
      h.holders = c.u32();
      h.role = c.template enumValue<HeldRole>(kHeldRoleCount);
      emit(h);
      return RecordClass::kTimed;
    }
    case RecordCode::kStep: {
      Step s;
      timed(s);
      s.thread = c.u64();
      s.step = c.u32();
      s.optimizer_steps = c.u32();
      s.phase = c.template enumValue<StepPhase>(kStepPhaseCount);
      emit(s);
      return RecordClass::kTimed;
    }
    case RecordCode::kString: {
      StringDef s;
      s.id = c.id();
      s.text = c.string();
      emit(std::move(s));
      return RecordClass::kUntimed;
    }
    case RecordCode::kModule: {
      ModuleDef m;
      m.id = c.id();
      m.path = c.u32();
      m.base = c.u64();
      m.size = c.u64();
      m.build_id = c.u32();
      emit(m);
      return RecordClass::kUntimed;
    }
    case RecordCode::kFrame: {
      FrameDef f;
      f.id = c.id();
      f.kind = c.template enumValue<FrameKind>(kFrameKindCount);
      f.module = c.u32();
      f.offset = c.u64();
      f.function = c.u32();
      f.file = c.u32();
      f.line = c.u32();
      emit(f);
      return RecordClass::kUntimed;
    }
    case RecordCode::kStack: {
      StackDef s;
      s.id = c.id();
      c.frames(s.frames);
      emit(std::move(s));
      return RecordClass::kUntimed;
    }
    case RecordCode::kProcess: {
      ProcessInfo p;
      p.pid = c.u64();
      p.start_unix_ns = c.u64();
      p.host = c.u32();
      p.command_line = c.u32();
      p.rank = c.s32();
      p.local_rank = c.s32();
      p.world_size = c.s32();
      emit(p);
      return RecordClass::kUntimed;
    }
    case RecordCode::kDevice: {
      DeviceInfo d;
      d.device = c.u32();
      d.name = c.u32();
      d.total_memory = c.u64();
      emit(d);
      return RecordClass::kUntimed;
    }
    case RecordCode::kProperty: {
      Property p;
      p.key = c.u32();
      p.value = c.u32();
      emit(p);
      return RecordClass::kUntimed;
    }
    case RecordCode::kDropped: {
      Dropped d;
      d.source = c.template enumValue<DropSource>(kDropSourceCount);
      d.count = c.u64();
      emit(d);
      return RecordClass::kUntimed;
    }
    case RecordCode::kAlloc:
    case RecordCode::kFree:
    case RecordCode::kAllocPacked:
    case RecordCode::kFreePacked:
    case RecordCode::kMemoryContext:
      break;  // decodeRecord's
    case RecordCode::kTrailer: {
      Trailer t;
      t.record_count = c.u64();
      t.end_timestamp = c.u64();
      emit(t);
      return RecordClass::kUntimed;
    }
  }
  return RecordClass::kUnknown;
}

// Decodes the known fields of one record and, when they are valid, passes it to visit as its own
// type. timestamp is the delta base on entry and the event's timestamp on exit.
// Memory contexts are read into `contexts` (the chunk's; reset at each chunk) and reported as
// untimed records that deliver nothing. Packed alloc/free records are delivered as Alloc/Free.
template <typename Cursor, typename Visit>
[[gnu::always_inline]] inline RecordClass decodeRecord(uint8_t code, Cursor& c, uint64_t& timestamp,
                                                       ContextTable& contexts, Visit& visit) {
  constexpr auto kAlloc = static_cast<uint8_t>(RecordCode::kAlloc);
  constexpr auto kFree = static_cast<uint8_t>(RecordCode::kFree);
  constexpr auto kAllocPacked = static_cast<uint8_t>(RecordCode::kAllocPacked);
  constexpr auto kFreePacked = static_cast<uint8_t>(RecordCode::kFreePacked);
  MemoryEvent e;
  bool alloc = false;
  if (code == kAllocPacked || code == kFreePacked) [[likely]] {
    readPackedMemoryEvent(c, contexts, timestamp, e);
    alloc = code == kAllocPacked;
  } else if (code == kAlloc || code == kFree) {
    timestamp += static_cast<uint64_t>(codec::unzigzag(c.u64()));
    e.timestamp = timestamp;
    readMemoryEvent(c, e);
    alloc = code == kAlloc;
  } else if (code == static_cast<uint8_t>(RecordCode::kMemoryContext)) {
    readMemoryContext(c, contexts);
    return RecordClass::kContext;
  } else {
    return decodeOtherRecord(code, c, timestamp, visit);
  }
  if (c.finish()) [[likely]] {
    if (alloc) {
      visit(Alloc{e});
    } else {
      visit(Free{e});
    }
  }
  return RecordClass::kTimed;
}

}  // namespace memfloor::trace::detail
