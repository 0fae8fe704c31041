// The checker's configuration: which types hold device memory, which calls release, rule options.
#pragma once

#include <filesystem>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <vector>

namespace memfloor::checker {

inline constexpr double kDefaultMinBeliefRatio = 0.3;  // MF001's default: 30% of the sites agree

struct Config {
  // A record is heavy when its unqualified name matches one of these (POSIX extended regex,
  // search), when its qualified name is listed in heavy_types, when it carries the annotation, or
  // when one of its members, bases or template arguments is heavy. light_* wins over all of these.
  std::vector<std::string> heavy_type_patterns{"[Tt]ensor", "[Ss]torage"};
  std::vector<std::string> heavy_types;
  std::vector<std::string> light_types{"std::weak_ptr", "std::reference_wrapper", "std::function",
                                       "std::basic_string_view", "std::span"};
  std::string heavy_annotation = "memfloor::heavy";
  std::string light_annotation = "memfloor::light";
  // Member calls that release the object they are called on (besides `= nullptr`, `= {}`,
  // `delete`, std::exchange, moving out and the methods found to release state).
  // `reset(p)` with a value is a store; the others release whatever their arguments.
  std::vector<std::string> release_methods{"reset",     "clear", "pop_back",
                                           "pop_front", "pop",   "erase"};
  // Member calls that store into a container (an assignment for MF002 and MF003).
  std::vector<std::string> store_methods{"push_back", "emplace_back", "push_front", "emplace_front",
                                         "insert",    "emplace",      "push",       "assign"};
  // Methods after which the object should be released, as if a site had taught it (MF001).
  std::vector<std::string> terminal_methods;
  // Calls on records of these namespaces are not MF001 sites (their methods are not "uses").
  std::vector<std::string> ignored_namespaces{"std", "__gnu_cxx", "llvm", "boost"};
  std::vector<std::string> disabled_rules;
  // MF001 learns "release after m()" for a (field or type, method) when at least this many sites
  // release after the call and they are at least this share of all its sites.
  int mf001_min_belief_sites = 1;
  double mf001_min_belief_ratio = kDefaultMinBeliefRatio;
  int mf003_min_released = 2;
  // MF002 at Python sites is opt-in: on PyTorch's and torchvision's own sources almost all of its
  // findings are state kept by design (docs/checks/triage.md).
  bool mf002_python = false;
  // MF004 at Python sites is opt-in too: on the training frameworks of docs/checks/triage.md, every
  // member it found released somewhere and used unguarded was ordered by the class's protocol
  // (allocate, use, release), never a None reached (docs/checks/MF004.md).
  bool mf004_python = false;
  // The Python front end's names of heavy objects: searched (Python `re` syntax) in attribute,
  // variable and class names.
  std::vector<std::string> python_heavy_name_patterns{"[Tt]ensor",    "[Ss]torage", "[Mm]anager",
                                                      "[Oo]ffload",   "[Cc]ache",   "[Bb]uffer",
                                                      "[Aa]ctivation"};
  // Python files and directories left out when directories are walked (globs; --exclude adds).
  std::vector<std::string> python_exclude;
};

// Reads a .memfloor-check.json; unknown keys and wrong types throw memfloor::Error naming the file.
Config loadConfig(const std::filesystem::path& path);

// Every key with its value, as in a .memfloor-check.json (what the Python front end is given).
nlohmann::json toJson(const Config& config);

// The nearest .memfloor-check.json in `start` or a directory above it.
std::optional<std::filesystem::path> findConfig(const std::filesystem::path& start);

inline constexpr const char* kConfigFileName = ".memfloor-check.json";

}  // namespace memfloor::checker
