// Clang-style text diagnostics: `file:line:col: warning: message [MF001]`, the source line with a
// caret, then `note:` lines at the related sites.
#pragma once

#include <string>
#include <vector>

#include "checker/finding.h"

namespace memfloor::checker {

// File names relative to `root` when below it. `snippets` adds the source line and caret.
std::string formatText(const std::vector<Finding>& findings, const std::string& root,
                       bool snippets = true);

}  // namespace memfloor::checker
