// Private to trace/: the fields of each record type, read in file order from a FieldCursor.
#pragma once

#include <cstdint>
#include <utility>

#include "trace/codec.h"
#include "trace/format.h"
#include "trace/records.h"

namespace memfloor::trace::detail {

enum class RecordClass { kUnknown, kUntimed, kTimed };

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

// Every record type but alloc and free: out of line, so that the hot path stays small.
template <typename Cursor, typename Visit>
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
template <typename Cursor, typename Visit>
[[gnu::always_inline]] inline RecordClass decodeRecord(uint8_t code, Cursor& c, uint64_t& timestamp,
                                                       Visit& visit) {
  constexpr auto kAlloc = static_cast<uint8_t>(RecordCode::kAlloc);
  constexpr auto kFree = static_cast<uint8_t>(RecordCode::kFree);
  if (code != kAlloc && code != kFree) [[unlikely]] {
    return decodeOtherRecord(code, c, timestamp, visit);
  }
  MemoryEvent e;
  timestamp += static_cast<uint64_t>(codec::unzigzag(c.u64()));
  e.timestamp = timestamp;
  readMemoryEvent(c, e);
  if (c.finish()) [[likely]] {
    if (code == kAlloc) {
      visit(Alloc{e});
    } else {
      visit(Free{e});
    }
  }
  return RecordClass::kTimed;
}

}  // namespace memfloor::trace::detail
