// The findings document (memfloor.findings/1) and baselines read from it.
#pragma once

#include <filesystem>
#include <nlohmann/json_fwd.hpp>
#include <set>
#include <string>
#include <vector>

#include "checker/finding.h"
#include "common/findings_schema.h"

namespace memfloor::checker {

using common::kFindingsSchema;  // declared in common/: memfloor analyze reads the document too

// File names are written relative to `root` when they are below it. `errors` are the units that
// could not be checked.
nlohmann::json findingsToJson(const std::vector<Finding>& findings,
                              const std::vector<std::string>& errors, const std::string& root);

// The fingerprints of a findings document used as a baseline, read through the common loader
// (common/json_input.h); throws memfloor::Error naming the file when it is unreadable, not a
// findings document or malformed.
std::set<std::string> readBaseline(const std::filesystem::path& file);

}  // namespace memfloor::checker
