// The checker's configuration: defaults, the JSON file and the upward search for it.
#include "analyzer/config.h"

#include <fstream>
#include <set>

#include <nlohmann/json.hpp>

#include "trace/error.h"

namespace memfloor::analyzer {

Config loadConfig(const std::filesystem::path& path) {
  std::ifstream in(path);
  if (!in) throw Error(path.string() + ": cannot read the configuration file");
  nlohmann::json json;
  try {
    json = nlohmann::json::parse(in, nullptr, true, /*ignore_comments=*/true);
  } catch (const nlohmann::json::exception& e) {
    throw Error(path.string() + ": not JSON: " + e.what());
  }
  if (!json.is_object()) throw Error(path.string() + ": expected a JSON object");
  Config config;
  const std::set<std::string> known{"heavy_type_patterns", "heavy_types", "light_types",
                                    "heavy_annotation",    "light_annotation", "release_methods",
                                    "store_methods",       "terminal_methods", "ignored_namespaces",
                                    "disabled_rules",      "mf001_min_belief_sites", "mf001_min_belief_ratio",
                                    "mf003_min_released"};
  for (const auto& [key, value] : json.items()) {
    if (!known.count(key)) throw Error(path.string() + ": unknown key '" + key + "'");
  }
  const auto read = [&](const char* key, auto& into) {
    if (!json.contains(key)) return;
    try {
      json.at(key).get_to(into);
    } catch (const nlohmann::json::exception&) {
      throw Error(path.string() + ": key '" + key + "' has the wrong type");
    }
  };
  read("heavy_type_patterns", config.heavy_type_patterns);
  read("heavy_types", config.heavy_types);
  read("light_types", config.light_types);
  read("heavy_annotation", config.heavy_annotation);
  read("light_annotation", config.light_annotation);
  read("release_methods", config.release_methods);
  read("store_methods", config.store_methods);
  read("terminal_methods", config.terminal_methods);
  read("ignored_namespaces", config.ignored_namespaces);
  read("disabled_rules", config.disabled_rules);
  read("mf001_min_belief_sites", config.mf001_min_belief_sites);
  read("mf001_min_belief_ratio", config.mf001_min_belief_ratio);
  read("mf003_min_released", config.mf003_min_released);
  return config;
}

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

}  // namespace memfloor::analyzer
