// --fix: applies the findings' fix-its to the source files, last offset first.
#include "checker/fixit_apply.h"

#include <algorithm>
#include <fstream>
#include <map>
#include <sstream>
#include <tuple>

#include "common/error.h"
#include "common/output_file.h"

namespace memfloor::checker {

std::size_t applyFixits(const std::vector<Finding>& findings) {
  using Edit = std::tuple<int, int, std::string>;  // offset, length, replacement
  std::map<std::string, std::vector<Edit>> edits;
  for (const Finding& f : findings) {
    for (const FixIt& x : f.fixits)
      edits[x.loc.file].emplace_back(x.loc.offset, x.length, x.replacement);
  }
  std::size_t applied = 0;
  for (auto& [file, list] : edits) {
    std::sort(list.begin(), list.end());
    list.erase(std::unique(list.begin(), list.end()), list.end());
    std::ifstream in(file, std::ios::binary);
    if (!in) throw Error(file + ": cannot read the file to fix");
    std::stringstream buffer;
    buffer << in.rdbuf();
    std::string text = buffer.str();
    int limit = static_cast<int>(text.size());  // edits are applied from the end
    for (auto it = list.rbegin(); it != list.rend(); ++it) {
      const auto& [offset, length, replacement] = *it;
      if (offset < 0 || offset + length > limit) continue;
      text.replace(static_cast<std::size_t>(offset), static_cast<std::size_t>(length), replacement);
      limit = offset;
      ++applied;
    }
    common::writeOutputFile(file, "fixed file", text);
  }
  return applied;
}

}  // namespace memfloor::checker
