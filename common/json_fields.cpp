// Typed access to JSON fields: each check, and the one error format.
#include "common/json_fields.h"

#include <fmt/core.h>

#include "common/error.h"

namespace memfloor::common {

using nlohmann::json;

void JsonFields::fail(std::string_view field, std::string_view what) const {
  // The document itself has no field name: "r.json: expected an object".
  if (field.empty()) throw Error(fmt::format("{}: {}", path_, what));
  throw Error(fmt::format("{}: {}: {}", path_, field, what));
}

void JsonFields::failNotOneOf(std::string_view field, std::string_view names,
                              std::string_view text) const {
  fail(field, fmt::format("expected one of {}, not \"{}\"", names, text));
}

std::string JsonFields::field(std::string_view context, const char* key) {
  return context.empty() ? std::string(key) : fmt::format("{}.{}", context, key);
}

std::string JsonFields::index(std::string_view context, size_t i) {
  return fmt::format("{}[{}]", context, i);
}

const json& JsonFields::member(const json& object, std::string_view context,
                               const char* key) const {
  if (!object.is_object()) fail(context, "expected an object");
  auto it = object.find(key);
  if (it == object.end()) fail(field(context, key), "missing");
  return *it;
}

const json* JsonFields::optional(const json& object, std::string_view context,
                                 const char* key) const {
  if (!object.is_object()) fail(context, "expected an object");
  auto it = object.find(key);
  return it == object.end() || it->is_null() ? nullptr : &*it;
}

const json& JsonFields::object(const json& j, std::string_view name) const {
  if (!j.is_object()) fail(name, "expected an object");
  return j;
}

const json& JsonFields::array(const json& j, std::string_view name) const {
  if (!j.is_array()) fail(name, "expected an array");
  return j;
}

std::string JsonFields::string(const json& j, std::string_view name) const {
  if (!j.is_string()) fail(name, "expected a string");
  return j.get<std::string>();
}

bool JsonFields::boolean(const json& j, std::string_view name) const {
  if (!j.is_boolean()) fail(name, "expected true or false");
  return j.get<bool>();
}

uint64_t JsonFields::unsignedInt(const json& j, std::string_view name, uint64_t max) const {
  // A parsed non-negative integer is unsigned; one built in code may be signed.
  if (!j.is_number_integer() || (!j.is_number_unsigned() && j.get<int64_t>() < 0)) {
    fail(name, "expected an unsigned integer");
  }
  const uint64_t v = j.get<uint64_t>();
  if (v > max) fail(name, fmt::format("value out of range (at most {})", max));
  return v;
}

int64_t JsonFields::signedInt(const json& j, std::string_view name, int64_t min,
                              int64_t max) const {
  const auto out_of_range = [&] {
    fail(name, fmt::format("value out of range ({} to {})", min, max));
  };
  int64_t v = 0;
  if (j.is_number_unsigned()) {
    if (j.get<uint64_t>() > static_cast<uint64_t>(max)) out_of_range();
    v = static_cast<int64_t>(j.get<uint64_t>());
  } else if (j.is_number_integer()) {
    v = j.get<int64_t>();
  } else {
    fail(name, "expected an integer");
  }
  if (v < min || v > max) out_of_range();
  return v;
}

double JsonFields::number(const json& j, std::string_view name) const {
  if (!j.is_number()) fail(name, "expected a number");
  return j.get<double>();
}

std::vector<std::string> JsonFields::strings(const json& j, std::string_view name) const {
  if (!j.is_array()) fail(name, "expected a list of strings");
  std::vector<std::string> out;
  out.reserve(j.size());
  for (size_t i = 0; i < j.size(); ++i) out.push_back(string(j[i], index(name, i)));
  return out;
}

const json& JsonFields::array(const json& object, std::string_view context, const char* key) const {
  return array(member(object, context, key), field(context, key));
}

const json& JsonFields::object(const json& object, std::string_view context,
                               const char* key) const {
  return this->object(member(object, context, key), field(context, key));
}

std::string JsonFields::string(const json& object, std::string_view context,
                               const char* key) const {
  return string(member(object, context, key), field(context, key));
}

bool JsonFields::boolean(const json& object, std::string_view context, const char* key) const {
  return boolean(member(object, context, key), field(context, key));
}

uint64_t JsonFields::u64(const json& object, std::string_view context, const char* key) const {
  return unsignedInt(member(object, context, key), field(context, key),
                     std::numeric_limits<uint64_t>::max());
}

uint64_t JsonFields::bytes(const json& object, std::string_view context, const char* key) const {
  return unsignedInt(member(object, context, key), field(context, key), kMaxBytes);
}

uint32_t JsonFields::u32(const json& object, std::string_view context, const char* key) const {
  return static_cast<uint32_t>(unsignedInt(member(object, context, key), field(context, key),
                                           std::numeric_limits<uint32_t>::max()));
}

uint16_t JsonFields::u16(const json& object, std::string_view context, const char* key) const {
  return static_cast<uint16_t>(unsignedInt(member(object, context, key), field(context, key),
                                           std::numeric_limits<uint16_t>::max()));
}

int64_t JsonFields::i64(const json& object, std::string_view context, const char* key) const {
  return signedInt(member(object, context, key), field(context, key),
                   std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max());
}

int32_t JsonFields::i32(const json& object, std::string_view context, const char* key) const {
  return static_cast<int32_t>(signedInt(member(object, context, key), field(context, key),
                                        std::numeric_limits<int32_t>::min(),
                                        std::numeric_limits<int32_t>::max()));
}

std::vector<std::string> JsonFields::strings(const json& object, std::string_view context,
                                             const char* key) const {
  return strings(member(object, context, key), field(context, key));
}

std::map<std::string, std::string> JsonFields::stringMap(const json& object,
                                                         std::string_view context,
                                                         const char* key) const {
  std::map<std::string, std::string> out;
  const std::string name = field(context, key);
  for (const auto& [k, v] : this->object(object, context, key).items()) {
    out.emplace(k, string(v, fmt::format("{}.{}", name, k)));
  }
  return out;
}

}  // namespace memfloor::common
