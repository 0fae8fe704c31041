// Private to trace/: little-endian integers, LEB128 varints and zigzag, shared by writer and
// reader.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace memfloor::trace::codec {

inline constexpr size_t kMaxVarintBytes = 10;

// Little-endian integers at any alignment: a plain load or store on little-endian hosts (x86-64,
// aarch64; the packed records' hot path relies on it), a byte swap on others.
inline constexpr bool kBigEndian = std::endian::native == std::endian::big;

inline uint16_t loadLe16(const uint8_t* p) {
  uint16_t v;
  std::memcpy(&v, p, sizeof v);
  return kBigEndian ? __builtin_bswap16(v) : v;
}
inline uint32_t loadLe32(const uint8_t* p) {
  uint32_t v;
  std::memcpy(&v, p, sizeof v);
  return kBigEndian ? __builtin_bswap32(v) : v;
}
inline uint64_t loadLe64(const uint8_t* p) {
  uint64_t v;
  std::memcpy(&v, p, sizeof v);
  return kBigEndian ? __builtin_bswap64(v) : v;
}
inline void storeLe16(uint8_t* p, uint16_t v) {
  if (kBigEndian) v = __builtin_bswap16(v);
  std::memcpy(p, &v, sizeof v);
}
inline void storeLe32(uint8_t* p, uint32_t v) {
  if (kBigEndian) v = __builtin_bswap32(v);
  std::memcpy(p, &v, sizeof v);
}
inline void storeLe64(uint8_t* p, uint64_t v) {
  if (kBigEndian) v = __builtin_bswap64(v);
  std::memcpy(p, &v, sizeof v);
}

inline uint64_t zigzag(int64_t v) {
  return (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63);
}
inline int64_t unzigzag(uint64_t v) {
  return static_cast<int64_t>(v >> 1) ^ -static_cast<int64_t>(v & 1);
}

inline size_t varintSize(uint64_t v) {
  size_t n = 1;
  while (v >= 0x80) {
    v >>= 7;
    ++n;
  }
  return n;
}

// Writes v at p (room for kMaxVarintBytes assumed); returns the byte after it.
inline uint8_t* putVarint(uint8_t* p, uint64_t v) {
  while (v >= 0x80) {
    *p++ = static_cast<uint8_t>(v | 0x80);
    v >>= 7;
  }
  *p++ = static_cast<uint8_t>(v);
  return p;
}

// Reads a varint from [p, end). Returns false when it runs past end, is longer than 10 bytes or
// does not fit 64 bits.
inline bool getVarint(const uint8_t*& p, const uint8_t* end, uint64_t& out) {
  if (p < end && *p < 0x80) {  // the common one-byte case
    out = *p++;
    return true;
  }
  uint64_t v = 0;
  for (unsigned shift = 0; shift < 64; shift += 7) {
    if (p == end) return false;
    const uint8_t byte = *p++;
    if (shift == 63 && byte > 1) return false;  // bits beyond 64
    v |= static_cast<uint64_t>(byte & 0x7f) << shift;
    if (byte < 0x80) {
      out = v;
      return true;
    }
  }
  return false;
}

}  // namespace memfloor::trace::codec
