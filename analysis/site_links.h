// Site links: which checker findings explain an allocating stack (docs/design.md, "Linking").
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/report.h"
#include "report/findings.h"  // LinkRule

namespace memfloor::analysis {

bool functionMatches(std::string_view demangled, std::string_view pattern);

// `frame_file` and `file` name the same source: equal, or one ends in "/" and the other.
bool sameSource(std::string_view frame_file, std::string_view file);

// Indexes of the rules that some frame of the stack matches, ascending.
std::vector<uint32_t> linkStack(const symbols::Stack& stack, const std::vector<LinkRule>& rules);

}  // namespace memfloor::analysis
