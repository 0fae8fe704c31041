// --fix: applies the findings' fix-its to the source files.
#pragma once

#include <string>
#include <vector>

#include "checker/finding.h"

namespace memfloor::checker {

// Applies every fix-it once (identical edits from several findings count once; an edit that
// overlaps one already taken is skipped). Returns the number of edits written; throws
// memfloor::Error when a file cannot be read or written.
std::size_t applyFixits(const std::vector<Finding>& findings);

}  // namespace memfloor::checker
