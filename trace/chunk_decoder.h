// Private to trace/: decodes one verified chunk body into records, checking every field.
//
// decodeChunk(header, body, visit) calls visit(record) with each record as its own type (Alloc,
// StringDef, ...) as an rvalue, in file order, and returns an empty string when the whole body
// decoded and matched its header, or else what was wrong. Callers drop what was visited when it
// fails: a chunk is delivered whole or not at all. It is a template so that each reader stores
// records its own way, without a Record temporary per event.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

#include "trace/chunk_loader.h"
#include "trace/codec.h"
#include "trace/format.h"
#include "trace/records.h"

namespace memfloor::trace::detail {

// A bounded cursor over one record's payload. Reading past the end or a value wider than its
// field records a problem; the record is checked once after all its fields.
struct FieldCursor {
  const uint8_t* p;
  const uint8_t* end;
  const char* problem = nullptr;

  void fail(const char* what) {
    if (problem == nullptr) problem = what;
  }
  // One-byte varints are the common case and stay inline; longer ones take u64Long().
  uint64_t u64() {
    if (p != end && *p < 0x80) [[likely]] {
      return *p++;
    }
    return u64Long();
  }
  uint64_t u64Long() {
    uint64_t v = 0;
    if (end - p >= static_cast<ptrdiff_t>(codec::kMaxVarintBytes)) {  // no bounds checks needed
      for (unsigned shift = 0; shift < 64; shift += 7) {
        const uint8_t byte = *p++;
        v |= static_cast<uint64_t>(byte & 0x7f) << shift;
        if (byte < 0x80) {
          if (shift == 63 && byte > 1) break;  // bits beyond 64
          return v;
        }
      }
      fail("malformed varint");
    } else if (!codec::getVarint(p, end, v)) {
      fail("payload ends inside its fields");  // fewer than 10 bytes left and no end byte
    }
    return v;
  }
  uint64_t bounded(uint64_t max) {
    const uint64_t v = u64();
    if (v > max) fail("value too large for its field");
    return v;
  }
  uint32_t u32() { return static_cast<uint32_t>(bounded(UINT32_MAX)); }
  uint8_t u8() { return static_cast<uint8_t>(bounded(UINT8_MAX)); }
  uint32_t id() {  // a defining id: must not be 0
    const uint32_t v = u32();
    if (v == kNoId) fail("id 0");
    return v;
  }
  int32_t s32() {
    const int64_t v = codec::unzigzag(u64());
    if (v < INT32_MIN || v > INT32_MAX) fail("value too large for its field");
    return static_cast<int32_t>(v);
  }
  template <typename Enum>
  Enum enumValue(uint8_t count) {  // values >= count are rejected
    const uint64_t v = u64();
    if (v >= count) fail("unknown enum value");
    return static_cast<Enum>(v < count ? v : 0);
  }
  MemoryKind memoryKind() {  // mapped, not rejected: a minor version may add kinds
    const uint64_t v = u64();
    return v < kMemoryKindCount ? static_cast<MemoryKind>(v) : MemoryKind::kUnknown;
  }
  std::string string() {
    const uint64_t n = u64();
    if (n > static_cast<uint64_t>(end - p)) {
      fail("payload ends inside its fields");
      p = end;
      return {};
    }
    std::string s(reinterpret_cast<const char*>(p), n);
    p += n;
    return s;
  }
};

enum class RecordClass { kUnknown, kUntimed, kTimed };

std::string recordProblem(uint8_t code, uint64_t offset, const char* problem);
std::string chunkProblem(const ChunkHeader& header, uint32_t records, uint64_t min_timestamp,
                         uint64_t max_timestamp);

inline void readMemoryEvent(FieldCursor& c, MemoryEvent& e) {
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

// Decodes the known fields of one record and, when they are valid, passes it to visit. timestamp
// is the delta base on entry and the event's timestamp on exit.
template <typename Visit>
RecordClass decodeRecord(uint8_t code, FieldCursor& c, uint64_t& timestamp, Visit& visit) {
  auto emit = [&](auto&& record) {
    if (c.problem == nullptr) visit(std::move(record));
  };
  auto timed = [&](auto& record) {
    timestamp += static_cast<uint64_t>(codec::unzigzag(c.u64()));
    record.timestamp = timestamp;
  };
  switch (static_cast<RecordCode>(code)) {
    case RecordCode::kAlloc: {
      Alloc a;
      timed(a);
      readMemoryEvent(c, a);
      emit(a);
      return RecordClass::kTimed;
    }
    case RecordCode::kFree: {
      Free f;
      timed(f);
      readMemoryEvent(c, f);
      emit(f);
      return RecordClass::kTimed;
    }
    case RecordCode::kPool: {
      PoolEvent e;
      timed(e);
      e.type = c.enumValue<PoolEventType>(kPoolEventTypeCount);
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
      m.type = c.enumValue<MarkerType>(kMarkerTypeCount);
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
      f.kind = c.enumValue<FrameKind>(kFrameKindCount);
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
      const uint64_t count = c.u64();
      if (count > static_cast<uint64_t>(c.end - c.p)) {  // each frame id takes at least a byte
        c.fail("payload ends inside its fields");
      } else {
        s.frames.resize(count);
        for (FrameId& frame : s.frames) frame = c.id();
      }
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
      d.source = c.enumValue<DropSource>(kDropSourceCount);
      d.count = c.u64();
      emit(d);
      return RecordClass::kUntimed;
    }
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

template <typename Visit>
std::string decodeChunk(const ChunkHeader& header, std::span<const uint8_t> body, Visit&& visit) {
  const uint8_t* p = body.data();
  const uint8_t* const end = p + body.size();
  uint32_t records = 0;
  uint64_t timestamp = 0;
  uint64_t min_timestamp = UINT64_MAX;
  uint64_t max_timestamp = 0;
  bool after_trailer = false;
  while (p < end) {
    const auto record_offset = static_cast<uint64_t>(p - body.data());
    const uint8_t code = *p++;
    if (after_trailer) return recordProblem(code, record_offset, "record after the trailer");
    uint64_t length = 0;
    if (!codec::getVarint(p, end, length) || length > static_cast<uint64_t>(end - p)) {
      return recordProblem(code, record_offset, "length runs past the chunk body");
    }
    FieldCursor c{p, p + length};
    p += length;
    ++records;
    const RecordClass kind = decodeRecord(code, c, timestamp, visit);
    if (c.problem != nullptr) return recordProblem(code, record_offset, c.problem);
    if (kind == RecordClass::kTimed) {
      min_timestamp = std::min(min_timestamp, timestamp);
      max_timestamp = std::max(max_timestamp, timestamp);
    }
    after_trailer = code == static_cast<uint8_t>(RecordCode::kTrailer);
  }
  if (records != header.record_count || min_timestamp != header.min_timestamp ||
      max_timestamp != header.max_timestamp) {
    return chunkProblem(header, records, min_timestamp, max_timestamp);
  }
  return {};
}

}  // namespace memfloor::trace::detail
