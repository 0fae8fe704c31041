// Private to trace/: reads the fields of one record's payload, checking each one.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "trace/codec.h"
#include "trace/records.h"

namespace memfloor::trace::detail {

// A cursor over one record's payload. Problems are collected as bits without branching (varint
// lengths and values vary record to record, so branches on them mispredict) and the record is
// checked once after all its fields.
//
// kPadded: the caller guarantees kPaddedMargin readable bytes from the payload's start (the chunk
// body goes on), so fixed-size fields are read without a bounds check per byte and the payload's
// end is checked once, by finish(). Variable-length parts (strings, frame lists) are always
// checked.
// The most varints in a fixed-field record is 10 (alloc), each read as at most 10 bytes.
inline constexpr ptrdiff_t kPaddedMargin = 128;

template <bool kPadded>
struct FieldCursor {
  static constexpr uint32_t kEndsEarly = 1;    // "payload ends inside its fields"
  static constexpr uint32_t kMalformed = 2;    // "malformed varint"
  static constexpr uint32_t kTooLarge = 4;     // "value too large for its field"
  static constexpr uint32_t kUnknownEnum = 8;  // "unknown enum value"
  static constexpr uint32_t kZeroId = 16;      // "id 0"
  static constexpr uint32_t kNoContext = 32;   // "memory context not defined in this chunk"

  const uint8_t* p;
  const uint8_t* end;  // the payload's end
  uint32_t problems = 0;

  FieldCursor(const uint8_t* payload, const uint8_t* payload_end) : p(payload), end(payload_end) {}

  [[gnu::always_inline]] uint64_t u64() {
    if constexpr (kPadded) {
      // Byte by byte, unrolled: on the CPUs measured this beat reading 8 bytes at once, whose
      // steps form a longer dependency chain from one field's position to the next. Adding
      // (byte - 1) << 7i also clears the previous byte's continuation bit.
      uint64_t value = p[0];
      if (value < 0x80) {
        ++p;
        return value;
      }
#pragma GCC unroll 9
      for (unsigned i = 1; i < codec::kMaxVarintBytes; ++i) {
        const uint64_t byte = p[i];
        value += (byte - 1) << (7 * i);
        if (byte < 0x80) {
          if (i == codec::kMaxVarintBytes - 1 && byte > 1) problems |= kMalformed;  // > 64 bits
          p += i + 1;
          return value;
        }
      }
      problems |= kMalformed;  // longer than 10 bytes
      p += codec::kMaxVarintBytes;
      return value;
    } else {
      if (p < end && *p < 0x80) return *p++;
      return u64Slow();
    }
  }
  [[gnu::noinline]] uint64_t u64Slow() {
    const uint8_t* start = p;
    uint64_t v = 0;
    if (p >= end || !codec::getVarint(p, end, v)) {  // with 10 bytes there, a valid one fits
      problems |=
          end - start >= static_cast<ptrdiff_t>(codec::kMaxVarintBytes) ? kMalformed : kEndsEarly;
      p = end;
    }
    return v;
  }
  // Whether the fields read so far lay inside the payload (a padded cursor may have read past).
  bool finish() {
    problems |= static_cast<uint32_t>(p > end) * kEndsEarly;
    return problems == 0;
  }
  const char* problem() const {
    if (problems & kEndsEarly) return "payload ends inside its fields";
    if (problems & kMalformed) return "malformed varint";
    if (problems & kTooLarge) return "value too large for its field";
    if (problems & kUnknownEnum) return "unknown enum value";
    if (problems & kZeroId) return "id 0";
    if (problems & kNoContext) return "memory context not defined in this chunk";
    return nullptr;
  }

  [[gnu::always_inline]] uint64_t bounded(uint64_t max) {
    const uint64_t v = u64();
    problems |= static_cast<uint32_t>(v > max) * kTooLarge;
    return v;
  }
  [[gnu::always_inline]] uint32_t u32() { return static_cast<uint32_t>(bounded(UINT32_MAX)); }
  [[gnu::always_inline]] uint8_t u8() { return static_cast<uint8_t>(bounded(UINT8_MAX)); }
  uint32_t id() {  // a defining id: must not be 0
    const uint32_t v = u32();
    problems |= static_cast<uint32_t>(v == kNoId) * kZeroId;
    return v;
  }
  int32_t s32() {
    const int64_t v = codec::unzigzag(u64());
    problems |= static_cast<uint32_t>(v < INT32_MIN || v > INT32_MAX) * kTooLarge;
    return static_cast<int32_t>(v);
  }
  template <typename Enum>
  [[gnu::always_inline]] Enum enumValue(uint8_t count) {  // values >= count are rejected
    const uint64_t v = u64();
    problems |= static_cast<uint32_t>(v >= count) * kUnknownEnum;
    return static_cast<Enum>(v < count ? v : 0);
  }
  // Mapped, not rejected: a minor version may add memory kinds. A kind's value keeps its meaning
  // in every 1.x file, so the file's minor is not consulted (docs/trace-format.md, version rules).
  [[gnu::always_inline]] MemoryKind memoryKind() {
    const uint64_t v = u64();
    return v < kMemoryKindCount ? static_cast<MemoryKind>(v) : MemoryKind::kUnknown;
  }
  // True when n more bytes lie inside the payload.
  bool has(uint64_t n) const { return p <= end && n <= static_cast<uint64_t>(end - p); }
  std::string string() {
    const uint64_t n = u64();
    if (!has(n)) {
      problems |= kEndsEarly;
      return {};
    }
    std::string s(reinterpret_cast<const char*>(p), n);
    p += n;
    return s;
  }
  void frames(std::vector<FrameId>& out) {
    const uint64_t count = u64();
    if (!has(count)) {  // each frame id takes at least a byte
      problems |= kEndsEarly;
      return;
    }
    FieldCursor<false> list{p, end};  // as many varints as the payload says: checked reads
    out.resize(count);
    for (FrameId& frame : out) frame = list.id();
    p = list.p;
    problems |= list.problems;
  }
};

}  // namespace memfloor::trace::detail
