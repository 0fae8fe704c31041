// A cursor over .eh_frame and .eh_frame_hdr bytes (LSB "Exception Frames"): fixed-size values,
// LEB128 numbers and DW_EH_PE_* encoded pointers, each read only if it lies before the end.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

namespace memfloor::hook::eh {

// DW_EH_PE_* pointer encodings: the low nibble is the value's format, the high one what it is
// relative to.
constexpr uint8_t kPeOmit = 0xff;
constexpr uint8_t kPeFormatMask = 0x0f;
constexpr uint8_t kPeApplicationMask = 0x70;
constexpr uint8_t kPeAbsptr = 0x00;
constexpr uint8_t kPeUleb128 = 0x01;
constexpr uint8_t kPeUdata2 = 0x02;
constexpr uint8_t kPeUdata4 = 0x03;
constexpr uint8_t kPeUdata8 = 0x04;
constexpr uint8_t kPeSleb128 = 0x09;
constexpr uint8_t kPeSdata2 = 0x0a;
constexpr uint8_t kPeSdata4 = 0x0b;
constexpr uint8_t kPeSdata8 = 0x0c;
constexpr uint8_t kPePcrel = 0x10;
constexpr uint8_t kPeDatarel = 0x30;
constexpr uint8_t kPeAligned = 0x50;
// The table of .eh_frame_hdr as GNU ld, gold, lld and mold write it: datarel sdata4 pairs.
constexpr uint8_t kTableEncoding = kPeDatarel | kPeSdata4;

class Cursor {
 public:
  Cursor(const uint8_t* p, const uint8_t* end) : p_(p), end_(end) {}
  const uint8_t* pos() const { return p_; }
  bool done() const { return p_ >= end_; }

  template <class T>
  bool fixed(T& out) {
    if (static_cast<size_t>(end_ - p_) < sizeof(T)) return false;
    std::memcpy(&out, p_, sizeof(T));
    p_ += sizeof(T);
    return true;
  }
  bool uleb(uint64_t& out) {
    out = 0;
    for (unsigned shift = 0; p_ < end_ && shift < 64; shift += 7) {
      uint8_t byte = *p_++;
      out |= uint64_t{byte & 0x7fu} << shift;
      if ((byte & 0x80) == 0) return true;
    }
    return false;
  }
  bool sleb(int64_t& out) {
    uint64_t value = 0;
    unsigned shift = 0;
    for (; p_ < end_ && shift < 64;) {
      uint8_t byte = *p_++;
      value |= uint64_t{byte & 0x7fu} << shift;
      shift += 7;
      if ((byte & 0x80) == 0) {
        if (shift < 64 && (byte & 0x40) != 0) value |= ~uint64_t{0} << shift;
        out = static_cast<int64_t>(value);
        return true;
      }
    }
    return false;
  }
  bool skip(uint64_t n) {
    if (n > static_cast<uint64_t>(end_ - p_)) return false;
    p_ += n;
    return true;
  }
  // An encoded pointer: absolute or relative to its own field (pcrel); other bases and indirect
  // pointers do not occur in the fields read here.
  bool pointer(uint8_t encoding, uint64_t& out) {
    const uint8_t* field = p_;
    if (!value(encoding & kPeFormatMask, out) || (encoding & 0x80) != 0) return false;
    switch (encoding & kPeApplicationMask) {
      case 0:
        return true;
      case kPePcrel:
        out += reinterpret_cast<uint64_t>(field);
        return true;
      default:
        return false;
    }
  }

 private:
  bool value(uint8_t format, uint64_t& out) {
    switch (format) {
      case kPeAbsptr:
      case kPeUdata8:
      case kPeSdata8:
        return fixed(out);
      case kPeUleb128:
        return uleb(out);
      case kPeSleb128: {
        int64_t v = 0;
        if (!sleb(v)) return false;
        out = static_cast<uint64_t>(v);
        return true;
      }
      case kPeUdata2:
        return widen<uint16_t>(out);
      case kPeUdata4:
        return widen<uint32_t>(out);
      case kPeSdata2:
        return widen<int16_t>(out);
      case kPeSdata4:
        return widen<int32_t>(out);
      default:
        return false;
    }
  }
  template <class T>
  bool widen(uint64_t& out) {
    T v{};
    if (!fixed(v)) return false;
    if constexpr (std::is_signed_v<T>) {
      out = static_cast<uint64_t>(static_cast<int64_t>(v));
    } else {
      out = v;
    }
    return true;
  }
  const uint8_t* p_;
  const uint8_t* end_;
};

}  // namespace memfloor::hook::eh
