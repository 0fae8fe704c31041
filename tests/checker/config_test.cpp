// Tests of the configuration file: defaults, reading, errors a user can act on, upward search.
#include "checker/config.h"

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "common/error.h"

namespace memfloor::checker {
namespace {

namespace fs = std::filesystem;

fs::path scratch(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / ("memfloor-config-test-" + name);
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

TEST_CASE("The defaults cover tensors, storages and the common release idioms", "[config]") {
  const Config config;
  CHECK(config.heavy_type_patterns == std::vector<std::string>{"[Tt]ensor", "[Ss]torage"});
  CHECK(config.release_methods ==
        std::vector<std::string>{"reset", "clear", "pop_back", "pop_front", "pop", "erase"});
  CHECK(config.heavy_annotation == "memfloor::heavy");
  CHECK(config.python_heavy_name_patterns ==
        std::vector<std::string>{"[Tt]ensor", "[Ss]torage", "[Mm]anager", "[Oo]ffload", "[Cc]ache",
                                 "[Bb]uffer", "[Aa]ctivation"});
  CHECK(config.python_exclude.empty());
  CHECK_FALSE(config.mf002_python);  // opt-in: docs/checks/triage.md
}

TEST_CASE("A configuration file overrides the keys it names", "[config]") {
  const fs::path dir = scratch("read");
  std::ofstream(dir / kConfigFileName) << R"({
    // comments are allowed
    "heavy_type_patterns": ["Blob"], "terminal_methods": ["groupOffload"],
    "disabled_rules": ["MF002"], "mf003_min_released": 3})";
  const Config config = loadConfig(dir / kConfigFileName);
  CHECK(config.heavy_type_patterns == std::vector<std::string>{"Blob"});
  CHECK(config.terminal_methods == std::vector<std::string>{"groupOffload"});
  CHECK(config.disabled_rules == std::vector<std::string>{"MF002"});
  CHECK(config.mf003_min_released == 3);
  CHECK(config.release_methods == Config{}.release_methods);
}

TEST_CASE("The Python keys are read like the others", "[config]") {
  const fs::path dir = scratch("python");
  std::ofstream(dir / kConfigFileName) << R"({"python_heavy_name_patterns": ["Blob$"],
    "python_exclude": ["tests/*", "*_pb2.py"]})";
  const Config config = loadConfig(dir / kConfigFileName);
  CHECK(config.python_heavy_name_patterns == std::vector<std::string>{"Blob$"});
  CHECK(config.python_exclude == std::vector<std::string>{"tests/*", "*_pb2.py"});
  std::ofstream(dir / "opt-in.json") << R"({"mf002_python": true})";
  CHECK(loadConfig(dir / "opt-in.json").mf002_python);
  std::ofstream(dir / "opt-in-bad.json") << R"({"mf002_python": 1})";
  CHECK_THROWS_WITH(loadConfig(dir / "opt-in-bad.json"),
                    Catch::Contains("opt-in-bad.json: mf002_python: expected true or false"));
  std::ofstream(dir / "bad.json") << R"({"python_exclude": "tests/*"})";
  CHECK_THROWS_WITH(loadConfig(dir / "bad.json"),
                    Catch::Contains("bad.json: python_exclude: expected a list of strings"));
  std::ofstream(dir / "bad-item.json") << R"({"python_exclude": ["tests/*", 2]})";
  CHECK_THROWS_WITH(loadConfig(dir / "bad-item.json"),
                    Catch::Contains("bad-item.json: python_exclude[1]: expected a string"));
}

TEST_CASE("toJson gives every key, and reads back as the same configuration", "[config]") {
  Config config;
  config.python_exclude = {"build/*"};
  config.mf003_min_released = 4;
  const nlohmann::json json = toJson(config);
  const std::vector<std::string> keys{"heavy_type_patterns",
                                      "heavy_types",
                                      "light_types",
                                      "heavy_annotation",
                                      "light_annotation",
                                      "release_methods",
                                      "store_methods",
                                      "terminal_methods",
                                      "ignored_namespaces",
                                      "disabled_rules",
                                      "mf001_min_belief_sites",
                                      "mf001_min_belief_ratio",
                                      "mf003_min_released",
                                      "mf002_python",
                                      "mf004_python",
                                      "python_heavy_name_patterns",
                                      "python_exclude"};
  for (const std::string& key : keys) {
    INFO(key);
    CHECK(json.contains(key));
  }
  CHECK(json.size() == keys.size());
  CHECK(json.at("python_exclude") == nlohmann::json::array({"build/*"}));
  const fs::path dir = scratch("round-trip");
  std::ofstream(dir / kConfigFileName) << json.dump();
  CHECK(toJson(loadConfig(dir / kConfigFileName)) == json);
}

TEST_CASE("Bad configuration files are refused with the file and the key", "[config]") {
  const fs::path dir = scratch("bad");
  std::ofstream(dir / "unknown.json") << R"({"heavy_typs": []})";
  CHECK_THROWS_WITH(loadConfig(dir / "unknown.json"), Catch::Contains("unknown key 'heavy_typs'"));
  std::ofstream(dir / "type.json") << R"({"mf003_min_released": "two"})";
  CHECK_THROWS_WITH(loadConfig(dir / "type.json"),
                    Catch::Contains("type.json: mf003_min_released: expected an integer"));
  // Counts are integers that fit an int: 1e300 used to be converted to one (undefined behaviour).
  for (const char* count : {"1e300", "2.5"}) {
    std::ofstream(dir / "count.json") << R"({"mf003_min_released": )" << count << "}";
    CHECK_THROWS_WITH(loadConfig(dir / "count.json"),
                      Catch::Contains("count.json: mf003_min_released: expected an integer"));
  }
  std::ofstream(dir / "count.json") << R"({"mf003_min_released": 4294967297})";
  CHECK_THROWS_WITH(loadConfig(dir / "count.json"),
                    Catch::Contains("count.json: mf003_min_released: value out of range "
                                    "(-2147483648 to 2147483647)"));
  std::ofstream(dir / "array.json") << "[]";
  CHECK_THROWS_WITH(loadConfig(dir / "array.json"),
                    Catch::Contains("array.json: expected an object"));
  std::ofstream(dir / "ratio.json") << R"({"mf001_min_belief_ratio": 1})";
  CHECK(loadConfig(dir / "ratio.json").mf001_min_belief_ratio == 1.0);
  std::ofstream(dir / "syntax.json") << "{";
  CHECK_THROWS_AS(loadConfig(dir / "syntax.json"), Error);
  CHECK_THROWS_AS(loadConfig(dir / "missing.json"), Error);
}

TEST_CASE("The configuration is found in the directory or above it", "[config]") {
  const fs::path dir = scratch("find");
  fs::create_directories(dir / "src" / "deep");
  std::ofstream(dir / "src" / "deep" / "a.cpp") << "";
  CHECK(findConfig(dir / "src" / "deep" / "a.cpp") !=
        std::optional<fs::path>(dir / kConfigFileName));
  std::ofstream(dir / kConfigFileName) << "{}";
  CHECK(findConfig(dir / "src" / "deep" / "a.cpp") == dir / kConfigFileName);
  CHECK(findConfig(dir / "src") == dir / kConfigFileName);
}

}  // namespace
}  // namespace memfloor::checker
