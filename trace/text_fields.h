// Private to trace/: the key=value fields of one text line, parsed into record fields.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "trace/records.h"
#include "trace/text_line.h"

namespace memfloor::trace {

// What the fields need from the reader: failing with the line's position, and ids for inline
// strings.
class TextLineContext {
 public:
  // Throws memfloor::Error("<name>:<line>: <what>").
  [[noreturn]] void fail(const std::string& what) const;
  virtual StringId inlineString(const std::string& text) = 0;

 protected:
  explicit TextLineContext(std::string name) : name_(std::move(name)) {}
  ~TextLineContext() = default;

  std::string name_;
  size_t line_number_ = 0;
};

// Each field is taken at most once; a field that is absent leaves the output at its default;
// done() fails on fields no setter took (unknown keys).
class TextFields {
 public:
  TextFields(TextLineContext& context, std::string_view word, std::span<const TextToken> args);

  void u64(std::string_view key, uint64_t& out);
  void u32(std::string_view key, uint32_t& out);
  void u8(std::string_view key, uint8_t& out);
  void s32(std::string_view key, int32_t& out);
  void stringId(std::string_view key, StringId& out);  // a number or an inline "string"
  void memoryKind(MemoryKind& out);                    // key "kind": a name or a number
  void frameKind(FrameKind& out);                      // key "kind": native or python
  void heldRole(HeldRole& out);                        // key "role": other, parameter, ...
  void boolean(std::string_view key, bool& out);       // 0 or 1
  void flags(uint8_t& out);                            // key "flags": async|vmm|0x80
  void frames(std::vector<FrameId>& out);              // key "frames": 1,2,3
  void done() const;

 private:
  const TextToken* take(std::string_view key);
  uint64_t number(const TextToken& t, uint64_t max) const;
  [[noreturn]] void bad(const TextToken& t, const std::string& expected) const;

  TextLineContext& context_;
  std::string_view word_;
  std::span<const TextToken> args_;
  std::vector<bool> used_;
};

// Helpers shared with the reader.
bool parseUnsigned(std::string_view s, uint64_t& out);  // decimal or 0x hex, whole string

// The value of Enum (count values) whose toString() is name.
template <typename Enum>
bool parseEnum(std::string_view name, uint8_t count, Enum& out) {
  for (uint8_t v = 0; v < count; ++v) {
    if (toString(static_cast<Enum>(v)) == name) {
      out = static_cast<Enum>(v);
      return true;
    }
  }
  return false;
}

template <typename Enum>
std::string enumNames(uint8_t count) {
  std::string names;
  for (uint8_t v = 0; v < count; ++v) {
    if (v > 0) names += ", ";
    names += toString(static_cast<Enum>(v));
  }
  return names;
}

}  // namespace memfloor::trace
