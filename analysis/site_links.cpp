// Site links: name normalisation and matching by trailing components.
#include "analysis/site_links.h"

#include "symbols/function_name.h"

namespace memfloor::analysis {
namespace {

std::vector<std::string_view> components(std::string_view name) {
  std::vector<std::string_view> out;
  size_t begin = 0;
  for (size_t at; (at = name.find("::", begin)) != std::string_view::npos; begin = at + 2) {
    out.push_back(name.substr(begin, at - begin));
  }
  out.push_back(name.substr(begin));
  return out;
}

}  // namespace

bool functionMatches(std::string_view demangled, std::string_view pattern) {
  std::string name = symbols::functionName(demangled);
  std::vector<std::string_view> have = components(name);
  std::vector<std::string_view> want = components(pattern);
  if (want.size() > have.size()) return false;
  size_t offset = have.size() - want.size();
  for (size_t i = 0; i < want.size(); ++i) {
    if (want[i] == "*" && i + 1 == want.size()) continue;
    if (want[i] != have[offset + i]) return false;
  }
  return true;
}

std::vector<uint32_t> linkStack(const symbols::Stack& stack, const std::vector<LinkRule>& rules) {
  std::vector<uint32_t> out;
  for (uint32_t r = 0; r < rules.size(); ++r) {
    bool linked = false;
    for (const symbols::Frame& frame : stack.frames) {
      if (frame.function.empty()) continue;
      for (const std::string& pattern : rules[r].functions) {
        if (functionMatches(frame.function, pattern)) {
          linked = true;
          break;
        }
      }
      if (linked) break;
    }
    if (linked) out.push_back(r);
  }
  return out;
}

}  // namespace memfloor::analysis
