// Clang-style text diagnostics.
#include "checker/text_output.h"

#include <fstream>
#include <map>

namespace memfloor::checker {
namespace {

class SourceLines {
 public:
  std::string line(const std::string& file, int number) {
    auto it = files_.find(file);
    if (it == files_.end()) {
      std::vector<std::string> lines;
      std::ifstream in(file);
      for (std::string l; std::getline(in, l);) lines.push_back(l);
      it = files_.emplace(file, std::move(lines)).first;
    }
    const auto index = static_cast<std::size_t>(number - 1);
    return number >= 1 && index < it->second.size() ? it->second[index] : std::string();
  }

 private:
  std::map<std::string, std::vector<std::string>> files_;
};

std::string position(const SourceLoc& loc, const std::string& root) {
  return relativePath(loc.file, root) + ":" + std::to_string(loc.line) + ":" +
         std::to_string(loc.column) + ": ";
}

void appendSnippet(std::string& out, SourceLines& lines, const SourceLoc& loc) {
  const std::string text = lines.line(loc.file, loc.line);
  if (text.empty()) return;
  out += text + "\n";
  std::string caret;
  for (int i = 1; i < loc.column && static_cast<std::size_t>(i) <= text.size(); ++i) {
    caret += text[static_cast<std::size_t>(i - 1)] == '\t' ? '\t' : ' ';
  }
  out += caret + "^\n";
}

}  // namespace

std::string formatText(const std::vector<Finding>& findings, const std::string& root,
                       bool snippets) {
  SourceLines lines;
  std::string out;
  for (const Finding& f : findings) {
    out += position(f.loc, root) + "warning: " + f.message + " [" + f.rule + "]\n";
    if (snippets) appendSnippet(out, lines, f.loc);
    for (const FixIt& x : f.fixits) {
      std::string text = x.replacement;
      for (std::size_t at = text.find('\n'); at != std::string::npos; at = text.find('\n', at)) {
        text.replace(at, 1, "\\n");
      }
      out += position(x.loc, root) + "note: fix-it: insert \"" + text + "\"\n";
    }
    for (const RelatedLocation& r : f.related) {
      out += position(r.loc, root) + "note: " + r.message + "\n";
      if (snippets) appendSnippet(out, lines, r.loc);
    }
  }
  return out;
}

}  // namespace memfloor::checker
