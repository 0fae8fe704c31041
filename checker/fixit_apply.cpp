// --fix: applies the findings' fix-its to the source files, last offset first.
#include "checker/fixit_apply.h"

#include <algorithm>
#include <cstdint>
#include <fstream>
#include <map>
#include <sstream>
#include <tuple>

#include "common/error.h"
#include "common/output_file.h"

namespace memfloor::checker {

std::size_t applyFixitsToText(std::string& text, const std::vector<FixIt>& fixits) {
  using Edit = std::tuple<int, int, std::string>;  // offset, length, replacement
  std::vector<Edit> edits;
  edits.reserve(fixits.size());
  for (const FixIt& x : fixits) edits.emplace_back(x.loc.offset, x.length, x.replacement);
  std::sort(edits.begin(), edits.end());
  edits.erase(std::unique(edits.begin(), edits.end()), edits.end());
  // 64-bit: an offset and a length near INT_MAX (a facts document's) must not overflow the sum.
  auto limit = static_cast<int64_t>(text.size());  // edits are applied from the end
  std::size_t applied = 0;
  for (auto it = edits.rbegin(); it != edits.rend(); ++it) {
    const auto& [offset, length, replacement] = *it;
    if (offset < 0 || length < 0 || int64_t{offset} + length > limit) continue;
    text.replace(static_cast<std::size_t>(offset), static_cast<std::size_t>(length), replacement);
    limit = offset;
    ++applied;
  }
  return applied;
}

std::size_t applyFixits(const std::vector<Finding>& findings) {
  std::map<std::string, std::vector<FixIt>> by_file;
  for (const Finding& f : findings) {
    for (const FixIt& x : f.fixits) by_file[x.loc.file].push_back(x);
  }
  std::size_t applied = 0;
  for (const auto& [file, fixits] : by_file) {
    std::ifstream in(file, std::ios::binary);
    if (!in) throw Error(file + ": cannot read the file to fix");
    std::stringstream buffer;
    buffer << in.rdbuf();
    std::string text = buffer.str();
    applied += applyFixitsToText(text, fixits);
    common::writeOutputFile(file, "fixed file", text);
  }
  return applied;
}

}  // namespace memfloor::checker
