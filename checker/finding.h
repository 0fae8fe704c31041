// A finding: one rule's report at one site, with related sites and fix-its.
#pragma once

#include <string>
#include <vector>

#include "checker/facts.h"

namespace memfloor::checker {

// Replace `length` bytes at `loc` (an insertion when 0) with `replacement`.
struct FixIt {
  SourceLoc loc;
  int length = 0;
  std::string replacement;
};

struct RelatedLocation {
  SourceLoc loc;
  std::string message;
};

struct Finding {
  std::string rule;  // MF001...
  std::string message;
  SourceLoc loc;
  std::vector<RelatedLocation> related;
  std::string function;  // display name of the enclosing function
  std::string field;     // the field or variable named in the message
  std::vector<FixIt> fixits;
};

// Stable across edits that move lines: the rule, the file relative to `root`, the function, the
// field and the message (which names no line). 16 hex digits.
std::string fingerprint(const Finding& finding, const std::string& root);
// `file` relative to `root` when it is below it, else unchanged.
std::string relativePath(const std::string& file, const std::string& root);

// Sorted by file, line, column, rule; exact duplicates removed.
void sortFindings(std::vector<Finding>& findings);

}  // namespace memfloor::checker
