// Site links: name normalisation and matching by trailing components.
#include "analysis/site_links.h"

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

std::string functionName(std::string_view text) {
  // "(anonymous namespace)::f" would otherwise end at its first parenthesis.
  std::string demangled(text);
  constexpr std::string_view kAnonymous = "(anonymous namespace)";
  for (size_t at; (at = demangled.find(kAnonymous)) != std::string::npos;) {
    demangled.replace(at, kAnonymous.size(), "{anonymous}");
  }
  std::string out;
  int angle = 0;
  for (size_t i = 0; i < demangled.size(); ++i) {
    char c = demangled[i];
    if (c == '<') {
      // "operator<" and "operator<<" are names, not template argument lists.
      if (out.size() >= 8 && out.compare(out.size() - 8, 8, "operator") == 0) {
        out += c;
        continue;
      }
      ++angle;
    } else if (c == '>' && angle > 0) {
      --angle;
    } else if (angle == 0) {
      if (c == '(' && !(out.size() >= 8 && out.compare(out.size() - 8, 8, "operator") == 0)) {
        break;  // the parameter list (a lambda's enclosing function keeps its name)
      }
      if (c == ' ') {
        out.clear();  // a return type ("void ns::f") or a cast operator's words: keep the last
        continue;
      }
      out += c;
    }
  }
  return out;
}

bool functionMatches(std::string_view demangled, std::string_view pattern) {
  std::string name = functionName(demangled);
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
