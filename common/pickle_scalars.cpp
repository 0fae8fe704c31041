// The pickle's scalar encodings decoded, as Python's _pickle.c decodes them.
#include "common/pickle_scalars.h"

#include <cassert>
#include <charconv>
#include <system_error>

#include "common/utf8.h"

namespace memfloor::common {

uint64_t littleEndian(std::span<const uint8_t> bytes) {
  assert(bytes.size() <= sizeof(uint64_t) && "at most 8 bytes make a uint64_t");
  uint64_t value = 0;
  for (size_t i = bytes.size(); i-- > 0;) value = (value << 8) | bytes[i];
  return value;
}

std::optional<int64_t> twosComplement(std::span<const uint8_t> bytes) {
  if (bytes.empty()) return 0;
  constexpr uint8_t kSignBit = 0x80;
  const bool negative = (bytes.back() & kSignBit) != 0;
  const uint8_t fill = negative ? 0xFF : 0x00;
  if (bytes.size() > sizeof(int64_t)) {
    // Longer than 8 bytes: within int64 only when the rest extends the sign of the eighth byte.
    for (size_t i = sizeof(int64_t); i < bytes.size(); ++i) {
      if (bytes[i] != fill) return std::nullopt;
    }
    if (((bytes[sizeof(int64_t) - 1] & kSignBit) != 0) != negative) return std::nullopt;
    bytes = bytes.first(sizeof(int64_t));
  }
  uint64_t value = littleEndian(bytes);
  if (negative && bytes.size() < sizeof(int64_t)) value |= ~uint64_t{0} << (8 * bytes.size());
  return static_cast<int64_t>(value);
}

namespace {

// The T that all of `text` is (from_chars takes no '+', no space); nullopt otherwise.
template <typename T, typename... Base>
std::optional<T> whole(std::string_view text, Base... base) {
  T value{};
  const char* end = text.data() + text.size();
  auto [stop, error] = std::from_chars(text.data(), end, value, base...);
  if (error != std::errc{} || stop != end) return std::nullopt;
  return value;
}

}  // namespace

std::optional<int64_t> decimalInt(std::string_view line) { return whole<int64_t>(line); }

std::optional<double> decimalFloat(std::string_view line) { return whole<double>(line); }

std::optional<std::string> rawUnicodeEscape(std::string_view line) {
  std::string out;
  out.reserve(line.size());
  size_t at = 0;
  while (at < line.size()) {
    if (line[at] != '\\') {
      appendUtf8(out, static_cast<uint8_t>(line[at++]));  // Latin-1
      continue;
    }
    // A run of backslashes: only an odd one ends in an escape, and only before 'u' or 'U'.
    size_t run = 0;
    for (; at < line.size() && line[at] == '\\'; ++at) ++run;
    out.append(run, '\\');
    if (run % 2 == 0 || at == line.size() || (line[at] != 'u' && line[at] != 'U')) continue;
    out.pop_back();
    const size_t digits = line[at] == 'u' ? 4 : 8;
    const std::string_view hex = line.substr(at + 1, digits);
    const std::optional<uint32_t> code_point = whole<uint32_t>(hex, 16);
    if (hex.size() != digits || !code_point || *code_point > kMaxCodePoint) return std::nullopt;
    appendUtf8(out, *code_point);
    at += 1 + digits;
  }
  return out;
}

}  // namespace memfloor::common
