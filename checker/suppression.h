// What is not reported: in-source suppressions and the findings of a baseline.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "checker/finding.h"

namespace memfloor::checker {

// Drops findings whose line, or the line above it, carries `memfloor-check: ignore[MF001,...]`
// naming their rule, or a bare `memfloor-check: ignore`. Returns how many were dropped.
std::size_t dropSuppressed(std::vector<Finding>& findings);

// Whether `line` suppresses `rule`.
bool suppresses(const std::string& line, const std::string& rule);

// Drops findings whose fingerprint (relative to `root`) is in `accepted`. Returns how many.
std::size_t dropBaselined(std::vector<Finding>& findings, const std::set<std::string>& accepted,
                          const std::string& root);

}  // namespace memfloor::checker
