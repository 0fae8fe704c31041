// The findings document (memfloor.findings/1) and baselines read from it.
#pragma once

#include <filesystem>
#include <nlohmann/json_fwd.hpp>
#include <set>
#include <string>
#include <vector>

#include "checker/finding.h"

namespace memfloor::checker {

inline constexpr const char* kFindingsSchema = "memfloor.findings/1";

// File names are written relative to `root` when they are below it. `errors` are the units that
// could not be checked.
nlohmann::json findingsToJson(const std::vector<Finding>& findings,
                              const std::vector<std::string>& errors, const std::string& root);

// The fingerprints of a findings document used as a baseline; throws memfloor::Error when the
// file is unreadable or not a findings document.
std::set<std::string> readBaseline(const std::filesystem::path& file);

}  // namespace memfloor::checker
