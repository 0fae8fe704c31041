// The checker's configuration: defaults, the JSON file and the upward search for it.
#include "checker/config.h"

#include <cstdint>
#include <limits>
#include <nlohmann/json.hpp>
#include <set>

#include "common/error.h"
#include "common/json_fields.h"
#include "common/json_input.h"

namespace memfloor::checker {

NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(Config, heavy_type_patterns, heavy_types,
                                                light_types, heavy_annotation, light_annotation,
                                                release_methods, store_methods, terminal_methods,
                                                ignored_namespaces, disabled_rules,
                                                mf001_min_belief_sites, mf001_min_belief_ratio,
                                                mf003_min_released, mf002_python, mf004_python,
                                                python_heavy_name_patterns, python_exclude)

namespace {

// `value` can stand for `expected`, its key's default: a list of strings, a string, true or false,
// a count (an integer that fits an int: a float, or an integer past int's range, would not convert
// to one; 1e300 to int is undefined behaviour) or a ratio (any number).
void checkKind(const common::JsonFields& f, const nlohmann::json& value,
               const nlohmann::json& expected, const std::string& key) {
  if (expected.is_array()) {
    f.strings(value, key);
  } else if (expected.is_number_integer()) {
    f.signedInt(value, key, std::numeric_limits<int>::min(), std::numeric_limits<int>::max());
  } else if (expected.is_number()) {
    f.number(value, key);
  } else if (expected.is_boolean()) {
    f.boolean(value, key);
  } else {
    f.string(value, key);
  }
}

}  // namespace

Config loadConfig(const std::filesystem::path& path) {
  // The common loader's file and parse checks; a configuration file has no schema.
  const std::string name = path.string();
  const nlohmann::json json =
      common::parseJson(common::readJsonFile(name, "configuration file"), name, /*comments=*/true);
  const common::JsonFields f(name);
  f.object(json, "");
  const nlohmann::json defaults = Config{};  // every key, with a value of the right kind
  for (const auto& [key, value] : json.items()) {
    if (!defaults.contains(key)) throw Error(name + ": unknown key '" + key + "'");
    checkKind(f, value, defaults.at(key), key);
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
