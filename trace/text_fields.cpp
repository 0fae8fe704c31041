// Parsing of key=value fields for the text reader: numbers with range checks, names, flags, lists.
#include "trace/text_fields.h"

#include <fmt/format.h>

#include <charconv>

#include "common/error.h"

namespace memfloor::trace {

void TextLineContext::fail(const std::string& what) const {
  throw Error(fmt::format("{}:{}: {}", name_, line_number_, what));
}

bool parseUnsigned(std::string_view s, uint64_t& out) {
  int base = 10;
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    s.remove_prefix(2);
    base = 16;
  }
  if (s.empty()) return false;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out, base);
  return ec == std::errc() && end == s.data() + s.size();
}

TextFields::TextFields(TextLineContext& context, std::string_view word,
                       std::span<const TextToken> args)
    : context_(context), word_(word), args_(args), used_(args.size(), false) {
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i].key.empty()) {
      context_.fail(
          fmt::format("unexpected '{}' in a {} line (fields are key=value)", args[i].value, word));
    }
    for (size_t j = 0; j < i; ++j) {
      if (args[j].key == args[i].key) {
        context_.fail(fmt::format("field '{}' given twice", args[i].key));
      }
    }
  }
}

const TextToken* TextFields::take(std::string_view key) {
  for (size_t i = 0; i < args_.size(); ++i) {
    if (args_[i].key == key) {
      used_[i] = true;
      return &args_[i];
    }
  }
  return nullptr;
}

void TextFields::bad(const TextToken& t, const std::string& expected) const {
  const char* quote = t.quoted ? "\"" : "";
  context_.fail(fmt::format("{}={}{}{}: expected {}", t.key, quote, t.value, quote, expected));
}

uint64_t TextFields::number(const TextToken& t, uint64_t max) const {
  uint64_t v = 0;
  if (t.quoted || !parseUnsigned(t.value, v) || v > max) {
    bad(t, max == UINT64_MAX ? "an unsigned 64-bit number" : fmt::format("a number up to {}", max));
  }
  return v;
}

void TextFields::u64(std::string_view key, uint64_t& out) {
  if (const TextToken* t = take(key)) out = number(*t, UINT64_MAX);
}

void TextFields::u32(std::string_view key, uint32_t& out) {
  if (const TextToken* t = take(key)) out = static_cast<uint32_t>(number(*t, UINT32_MAX));
}

void TextFields::u8(std::string_view key, uint8_t& out) {
  if (const TextToken* t = take(key)) out = static_cast<uint8_t>(number(*t, UINT8_MAX));
}

void TextFields::s32(std::string_view key, int32_t& out) {
  const TextToken* t = take(key);
  if (t == nullptr) return;
  std::string_view v = t->value;
  const bool negative = !v.empty() && v[0] == '-';
  if (negative) v.remove_prefix(1);
  uint64_t magnitude = 0;
  if (t->quoted || !parseUnsigned(v, magnitude) ||
      magnitude > (negative ? uint64_t{1} << 31 : uint64_t{INT32_MAX})) {
    bad(*t, "a number from -2147483648 to 2147483647");
  }
  const auto signed_magnitude = static_cast<int64_t>(magnitude);
  out = static_cast<int32_t>(negative ? -signed_magnitude : signed_magnitude);
}

void TextFields::stringId(std::string_view key, StringId& out) {
  const TextToken* t = take(key);
  if (t == nullptr) return;
  out = t->quoted ? context_.inlineString(t->text) : static_cast<StringId>(number(*t, UINT32_MAX));
}

void TextFields::memoryKind(MemoryKind& out) {
  const TextToken* t = take("kind");
  if (t == nullptr || (!t->quoted && parseEnum(t->value, kMemoryKindCount, out))) return;
  uint64_t v = 0;
  if (t->quoted || !parseUnsigned(t->value, v) || v > UINT8_MAX) {
    bad(*t, "a memory kind (" + enumNames<MemoryKind>(kMemoryKindCount) + ") or a number");
  }
  out = v < kMemoryKindCount ? static_cast<MemoryKind>(v) : MemoryKind::kUnknown;
}

void TextFields::frameKind(FrameKind& out) {
  const TextToken* t = take("kind");
  if (t != nullptr && (t->quoted || !parseEnum(t->value, kFrameKindCount, out))) {
    bad(*t, "native or python");
  }
}

void TextFields::heldRole(HeldRole& out) {
  const TextToken* t = take("role");
  if (t != nullptr && (t->quoted || !parseEnum(t->value, kHeldRoleCount, out))) {
    bad(*t, enumNames<HeldRole>(kHeldRoleCount));
  }
}

void TextFields::boolean(std::string_view key, bool& out) {
  const TextToken* t = take(key);
  if (t != nullptr) out = number(*t, 1) != 0;
}

void TextFields::flags(uint8_t& out) {
  const TextToken* t = take("flags");
  if (t == nullptr) return;
  out = 0;
  std::string_view rest = t->value;
  for (;;) {
    const size_t bar = rest.find('|');
    const std::string_view part = rest.substr(0, bar);
    uint64_t v = 0;
    if (part == "async") {
      v = kMemoryFlagAsync;
    } else if (part == "vmm") {
      v = kMemoryFlagVmm;
    } else if (t->quoted || !parseUnsigned(part, v) || v > UINT8_MAX) {
      bad(*t, "async, vmm or numbers up to 255, joined by '|'");
    }
    out = static_cast<uint8_t>(out | v);
    if (bar == std::string_view::npos) return;
    rest.remove_prefix(bar + 1);
  }
}

void TextFields::frames(std::vector<FrameId>& out) {
  const TextToken* t = take("frames");
  if (t == nullptr || (!t->quoted && t->value.empty())) return;
  std::string_view rest = t->value;
  for (;;) {
    const size_t comma = rest.find(',');
    uint64_t v = 0;
    if (t->quoted || !parseUnsigned(rest.substr(0, comma), v) || v == 0 || v > UINT32_MAX) {
      bad(*t, "non-zero frame ids separated by commas");
    }
    out.push_back(static_cast<FrameId>(v));
    if (comma == std::string_view::npos) return;
    rest.remove_prefix(comma + 1);
  }
}

void TextFields::done() const {
  for (size_t i = 0; i < args_.size(); ++i) {
    if (!used_[i]) context_.fail(fmt::format("unknown field '{}' for {}", args_[i].key, word_));
  }
}

}  // namespace memfloor::trace
