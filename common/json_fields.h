// Typed access to the fields of a JSON document, with errors that name the file and the field
// ("report.json: runs[0].memory[1].peak: expected an unsigned integer"): every reader's tool.
#pragma once

#include <array>
#include <cstdint>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace memfloor::common {

// A field is named by its path from the document: `context` is the object's ("runs[0].trend"),
// "" for the document itself. Every accessor throws memfloor::Error on a missing field or one of
// another type; none returns a value it did not check. Documents come from common/json_input.h.
class JsonFields {
 public:
  // The largest size in bytes read: 2^63 − 1 (beyond that is not a plausible size, and sizes are
  // subtracted: the gate's differences).
  static constexpr uint64_t kMaxBytes = static_cast<uint64_t>(std::numeric_limits<int64_t>::max());

  // `path` names the document in messages; its string must outlive this.
  explicit JsonFields(std::string_view path) : path_(path) {}

  [[noreturn]] void fail(std::string_view field, std::string_view what) const;

  static std::string field(std::string_view context, const char* key);  // "runs[0].label"
  static std::string index(std::string_view context, size_t i);         // "runs[0]"

  const nlohmann::json& member(const nlohmann::json& object, std::string_view context,
                               const char* key) const;
  // nullptr when the field is absent or null.
  const nlohmann::json* optional(const nlohmann::json& object, std::string_view context,
                                 const char* key) const;

  // Values, `name` naming them.
  const nlohmann::json& object(const nlohmann::json& j, std::string_view name) const;
  const nlohmann::json& array(const nlohmann::json& j, std::string_view name) const;
  std::string string(const nlohmann::json& j, std::string_view name) const;
  bool boolean(const nlohmann::json& j, std::string_view name) const;
  uint64_t unsignedInt(const nlohmann::json& j, std::string_view name, uint64_t max) const;
  int64_t signedInt(const nlohmann::json& j, std::string_view name, int64_t min, int64_t max) const;
  double number(const nlohmann::json& j, std::string_view name) const;  // integer or not
  // A list of strings: "expected a list of strings", or the element that is not one ("x[2]").
  std::vector<std::string> strings(const nlohmann::json& j, std::string_view name) const;

  // Members `key` of `object`, which is named `context`.
  const nlohmann::json& array(const nlohmann::json& object, std::string_view context,
                              const char* key) const;
  const nlohmann::json& object(const nlohmann::json& object, std::string_view context,
                               const char* key) const;
  std::string string(const nlohmann::json& object, std::string_view context, const char* key) const;
  bool boolean(const nlohmann::json& object, std::string_view context, const char* key) const;
  uint64_t u64(const nlohmann::json& object, std::string_view context, const char* key) const;
  uint64_t bytes(const nlohmann::json& object, std::string_view context,
                 const char* key) const;  // at most kMaxBytes
  uint32_t u32(const nlohmann::json& object, std::string_view context, const char* key) const;
  uint16_t u16(const nlohmann::json& object, std::string_view context, const char* key) const;
  int64_t i64(const nlohmann::json& object, std::string_view context, const char* key) const;
  int32_t i32(const nlohmann::json& object, std::string_view context, const char* key) const;
  std::vector<std::string> strings(const nlohmann::json& object, std::string_view context,
                                   const char* key) const;
  // An object of strings.
  std::map<std::string, std::string> stringMap(const nlohmann::json& object,
                                               std::string_view context, const char* key) const;

  // An enum written by its toString name, one of `values`.
  template <typename E, size_t N>
  E name(const nlohmann::json& object, std::string_view context, const char* key,
         const std::array<E, N>& values) const {
    const std::string text = string(object, context, key);
    std::string names;
    for (E v : values) {
      if (toString(v) == text) return v;
      names += names.empty() ? "" : ", ";
      names += toString(v);
    }
    failNotOneOf(field(context, key), names, text);
  }

  // read(element, its name) for each element of the array `key` of `object`.
  template <typename Read>
  void each(const nlohmann::json& object, std::string_view context, const char* key,
            Read read) const {
    const nlohmann::json& items = array(object, context, key);
    const std::string name = field(context, key);
    for (size_t i = 0; i < items.size(); ++i) read(items[i], index(name, i));
  }

 private:
  [[noreturn]] void failNotOneOf(std::string_view field, std::string_view names,
                                 std::string_view text) const;

  std::string_view path_;
};

}  // namespace memfloor::common
