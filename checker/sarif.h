// SARIF 2.1.0 output for code scanning: rule metadata, repo-relative URIs, related locations,
// partial fingerprints and fixes.
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "checker/finding.h"
#include "checker/rules/rule.h"

namespace memfloor::checker {

// URIs are relative to `root` (uriBaseId %SRCROOT%) when the file is below it.
nlohmann::json toSarif(const std::vector<Finding>& findings, const std::vector<RuleInfo>& rules,
                       const std::string& root);

}  // namespace memfloor::checker
