// Clang-style text diagnostics.
#include "checker/text_output.h"

#include <algorithm>
#include <fstream>
#include <map>
#include <string_view>

#include "common/printable.h"

namespace memfloor::checker {
namespace {

class SourceLines {
 public:
  std::string line(const std::string& file, int number) {
    auto it = files_.find(file);
    if (it == files_.end()) {
      std::vector<std::string> lines;
      std::ifstream in(file);
      for (std::string l; std::getline(in, l);) {
        if (!l.empty() && l.back() == '\r') l.pop_back();  // a CRLF file
        lines.push_back(std::move(l));
      }
      it = files_.emplace(file, std::move(lines)).first;
    }
    const auto index = static_cast<std::size_t>(number - 1);
    return number >= 1 && index < it->second.size() ? it->second[index] : std::string();
  }

 private:
  std::map<std::string, std::vector<std::string>> files_;
};

// Every text from an input (file names, messages and names from sources or --facts documents,
// source lines) goes through common::printable: a control byte in it must not reach the terminal.
std::string position(const SourceLoc& loc, const std::string& root) {
  return common::printable(relativePath(loc.file, root)) + ":" + std::to_string(loc.line) + ":" +
         std::to_string(loc.column) + ": ";
}

void appendSnippet(std::string& out, SourceLines& lines, const SourceLoc& loc) {
  const std::string text = lines.line(loc.file, loc.line);
  if (text.empty()) return;
  // Tabs are kept, and the caret line repeats them to stay under the column; the caret is as far
  // in as the escaped text before the column is long.
  out += common::printableExcept(text, "\t") + "\n";
  const auto before = static_cast<std::size_t>(std::max(loc.column - 1, 0));
  std::string caret = common::printableExcept(std::string_view(text).substr(0, before), "\t");
  for (char& c : caret) c = c == '\t' ? '\t' : ' ';
  out += caret + "^\n";
}

}  // namespace

std::string formatText(const std::vector<Finding>& findings, const std::string& root,
                       bool snippets) {
  SourceLines lines;
  std::string out;
  for (const Finding& f : findings) {
    out += position(f.loc, root) + "warning: " + common::printable(f.message) + " [" +
           common::printable(f.rule) + "]\n";
    if (snippets) appendSnippet(out, lines, f.loc);
    for (const FixIt& x : f.fixits) {
      std::string text = x.replacement;
      for (std::size_t at = text.find('\n'); at != std::string::npos; at = text.find('\n', at)) {
        text.replace(at, 1, "\\n");
      }
      out += position(x.loc, root) + "note: fix-it: insert \"" +
             common::printableExcept(text, "\t") + "\"\n";
    }
    for (const RelatedLocation& r : f.related) {
      out += position(r.loc, root) + "note: " + common::printable(r.message) + "\n";
      if (snippets) appendSnippet(out, lines, r.loc);
    }
  }
  return out;
}

}  // namespace memfloor::checker
