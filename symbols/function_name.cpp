// Demangled names shortened: parameters, return types and template arguments dropped.
#include "symbols/function_name.h"

namespace memfloor::symbols {

namespace {

bool endsWith(const std::string& s, std::string_view tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
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
      if (angle == 0 && (endsWith(out, "operator") || endsWith(out, "operator<"))) {
        out += c;
        continue;
      }
      ++angle;
    } else if (c == '>' && angle > 0) {
      --angle;
    } else if (angle == 0) {
      if (c == '(' && !endsWith(out, "operator")) {
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

}  // namespace memfloor::symbols
