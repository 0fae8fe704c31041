// The checker's configuration: defaults, the JSON file and the upward search for it.
#include "checker/config.h"

#include <cstdint>
#include <limits>
#include <nlohmann/json.hpp>
#include <set>

#include "common/error.h"
#include "common/json_input.h"

namespace memfloor::checker {

NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(Config, heavy_type_patterns, heavy_types,
                                                light_types, heavy_annotation, light_annotation,
                                                release_methods, store_methods, terminal_methods,
                                                ignored_namespaces, disabled_rules,
                                                mf001_min_belief_sites, mf001_min_belief_ratio,
                                                mf003_min_released, mf002_python,
                                                python_heavy_name_patterns, python_exclude)

namespace {

// `value` can stand for `expected`: a count must be an integer that fits an int (a float, or an
// integer past int's range, would not convert to one: 1e300 to int is undefined behaviour); a
// ratio may be any number.
bool sameKind(const nlohmann::json& value, const nlohmann::json& expected) {
  if (expected.is_number_integer()) {
    if (value.is_number_unsigned()) {
      return value.get<uint64_t>() <= static_cast<uint64_t>(std::numeric_limits<int>::max());
    }
    return value.is_number_integer() && value.get<int64_t>() >= std::numeric_limits<int>::min() &&
           value.get<int64_t>() <= std::numeric_limits<int>::max();
  }
  return value.type() == expected.type() || (value.is_number() && expected.is_number());
}

}  // namespace

Config loadConfig(const std::filesystem::path& path) {
  // The common loader's file and parse checks; a configuration file has no schema.
  const nlohmann::json json = common::parseJson(
      common::readJsonFile(path.string(), "configuration file"), path.string(), /*comments=*/true);
  if (!json.is_object()) throw Error(path.string() + ": expected a JSON object");
  const nlohmann::json defaults = Config{};  // every key, with a value of the right kind
  for (const auto& [key, value] : json.items()) {
    if (!defaults.contains(key)) throw Error(path.string() + ": unknown key '" + key + "'");
    const nlohmann::json& expected = defaults.at(key);
    const bool ok = sameKind(value, expected) &&
                    (!value.is_array() || std::all_of(value.begin(), value.end(),
                                                      [](const auto& v) { return v.is_string(); }));
    if (!ok) {
      throw Error(path.string() + ": key '" + key + "' should be " +
                  (expected.is_array()            ? "a list of strings"
                   : expected.is_number_integer() ? "an integer"
                                                  : expected.type_name()));
    }
  }
  return json.get<Config>();
}

nlohmann::json toJson(const Config& config) { return config; }

std::optional<std::filesystem::path> findConfig(const std::filesystem::path& start) {
  std::error_code ec;
  std::filesystem::path dir = std::filesystem::absolute(start, ec);
  if (ec) return std::nullopt;
  if (!std::filesystem::is_directory(dir, ec)) dir = dir.parent_path();
  for (;;) {
    std::filesystem::path candidate = dir / kConfigFileName;
    if (std::filesystem::is_regular_file(candidate, ec)) return candidate;
    if (dir == dir.root_path() || dir.empty()) return std::nullopt;
    dir = dir.parent_path();
  }
}

}  // namespace memfloor::checker
