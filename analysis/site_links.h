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
// "Layer::*" matches any method of Layer.
struct LinkRule {
  std::vector<std::string> functions;
};

bool functionMatches(std::string_view demangled, std::string_view pattern);

// Indexes of the rules that some frame of the stack matches, ascending.
std::vector<uint32_t> linkStack(const symbols::Stack& stack, const std::vector<LinkRule>& rules);

}  // namespace memfloor::analysis
