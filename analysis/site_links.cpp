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
  constexpr std::string_view kAnyMethod = ".*";  // a Python class's methods: "Layer.*"
  if (pattern.size() > kAnyMethod.size() && pattern.ends_with(kAnyMethod) &&
      pattern.find("::") == std::string_view::npos) {
    return demangled.starts_with(pattern.substr(0, pattern.size() - 1));
  }
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

bool sameSource(std::string_view frame_file, std::string_view file) {
  if (frame_file == file) return true;
  const auto endsIn = [](std::string_view path, std::string_view tail) {
    return path.size() > tail.size() && path.ends_with(tail) &&
           path[path.size() - tail.size() - 1] == '/';
  };
  return !file.empty() && (endsIn(frame_file, file) || endsIn(file, frame_file));
}

std::vector<uint32_t> linkStack(const symbols::Stack& stack, const std::vector<LinkRule>& rules) {
  std::vector<uint32_t> out;
  for (uint32_t r = 0; r < rules.size(); ++r) {
    bool linked = false;
    for (const symbols::Frame& frame : stack.frames) {
      if (frame.function.empty()) continue;
      if (!rules[r].file.empty() && frame.kind == trace::FrameKind::kPython &&
          !sameSource(frame.file, rules[r].file)) {
        continue;
      }
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
