// Site links: which checker findings explain an allocating stack (docs/design.md, "Linking").
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/report.h"

namespace memfloor::analysis {

// The functions whose presence in an allocating stack links the stack to one finding. A pattern is
// a qualified name matched against a frame's function by trailing name components, parameters
// dropped (symbols::functionName): "Layer::forward" matches "ns::Layer::forward(Context&) const";
// "Layer::*" matches any method of Layer. Python qualified names match whole ("Layer.forward"),
// and "Layer.*" matches any method of Layer. `file`, for a finding in Python source: a Python
// frame links only from that file (the same path, or one ending in it).
struct LinkRule {
  std::vector<std::string> functions;
  std::string file;
};

bool functionMatches(std::string_view demangled, std::string_view pattern);

// `frame_file` and `file` name the same source: equal, or one ends in "/" and the other.
bool sameSource(std::string_view frame_file, std::string_view file);

// Indexes of the rules that some frame of the stack matches, ascending.
std::vector<uint32_t> linkStack(const symbols::Stack& stack, const std::vector<LinkRule>& rules);

}  // namespace memfloor::analysis
