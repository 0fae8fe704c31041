// UTF-8 checked as Python's 'surrogatepass' reads it, and written.
#include "common/utf8.h"

#include <array>
#include <bit>
#include <cstdint>

namespace memfloor::common {

namespace {

constexpr char32_t kReplacement = 0xFFFD;
constexpr uint8_t kContinuationMask = 0xC0;  // the two top bits of a continuation byte: 10
constexpr uint8_t kContinuation = 0x80;

// The length of the sequence that starts at text[at] when it is a valid one, else 0.
size_t sequenceAt(std::string_view text, size_t at) {
  const auto lead = static_cast<uint8_t>(text[at]);
  const int length = std::countl_one(lead);  // 0: ASCII; 2 to 4: a lead byte; else invalid
  if (length == 0) return 1;
  if (length < 2 || length > 4 || text.size() - at < static_cast<size_t>(length)) return 0;
  // The smallest code point of each length: a smaller one is an overlong form.
  constexpr std::array<char32_t, 5> kSmallest{0, 0, 0x80, 0x800, 0x10000};
  char32_t code_point = lead & (0x7Fu >> length);
  for (int i = 1; i < length; ++i) {
    const auto byte = static_cast<uint8_t>(text[at + i]);
    if ((byte & kContinuationMask) != kContinuation) return 0;
    code_point = (code_point << 6) | (byte & 0x3Fu);
  }
  if (code_point < kSmallest[length] || code_point > kMaxCodePoint) return 0;
  return length;
}

}  // namespace

size_t utf8Prefix(std::string_view text) {
  size_t at = 0;
  while (at < text.size()) {
    const size_t length = sequenceAt(text, at);
    if (length == 0) return at;
    at += length;
  }
  return at;
}

void appendUtf8(std::string& out, char32_t code_point) {
  if (code_point < kContinuation) {
    out += static_cast<char>(code_point);
    return;
  }
  // The lead byte of each length, then six bits per continuation byte.
  constexpr std::array<unsigned, 5> kLead{0, 0, 0xC0, 0xE0, 0xF0};
  constexpr std::array<char32_t, 4> kLimit{0, 0, 0x800, 0x10000};  // below: fits in that length
  int length = 2;
  while (length < 4 && code_point >= kLimit[length]) ++length;
  out += static_cast<char>(kLead[length] | (code_point >> (6 * (length - 1))));
  for (int shift = 6 * (length - 2); shift >= 0; shift -= 6) {
    out += static_cast<char>(kContinuation | ((code_point >> shift) & 0x3Fu));
  }
}

std::string replaceInvalidUtf8(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  while (!text.empty()) {
    const size_t valid = utf8Prefix(text);
    out.append(text.substr(0, valid));
    text.remove_prefix(valid);
    if (!text.empty()) {
      appendUtf8(out, kReplacement);
      text.remove_prefix(1);
    }
  }
  return out;
}

}  // namespace memfloor::common
