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

// Applies `fixits`, all of one file, to its `text`, last offset first: identical edits count
// once; one that overlaps an edit already taken, or that is not inside the text (the offsets come
// from facts documents), is skipped. Their files are not looked at. Returns the number applied.
std::size_t applyFixitsToText(std::string& text, const std::vector<FixIt>& fixits);

}  // namespace memfloor::checker
