// In-source suppressions and baselines.
#include "checker/suppression.h"

#include <algorithm>
#include <fstream>
#include <map>

namespace memfloor::checker {
namespace {

constexpr const char* kMarker = "memfloor-check: ignore";

std::vector<std::string> readLines(const std::string& file) {
  std::vector<std::string> lines;
  std::ifstream in(file);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

}  // namespace

bool suppresses(const std::string& line, const std::string& rule) {
  const std::size_t at = line.find(kMarker);
  if (at == std::string::npos) return false;
  const std::size_t after = at + std::char_traits<char>::length(kMarker);
  if (after >= line.size() || line[after] != '[') return true;  // ignore everything
  const std::size_t close = line.find(']', after);
  const std::string list =
      line.substr(after + 1, close == std::string::npos ? std::string::npos : close - after - 1);
  std::size_t begin = 0;
  while (begin <= list.size()) {
    std::size_t end = list.find(',', begin);
    if (end == std::string::npos) end = list.size();
    std::string item = list.substr(begin, end - begin);
    item.erase(std::remove(item.begin(), item.end(), ' '), item.end());
    if (item == rule || item == "*") return true;
    begin = end + 1;
  }
  return false;
}

std::size_t dropSuppressed(std::vector<Finding>& findings) {
  std::map<std::string, std::vector<std::string>> files;
  const auto suppressed = [&](const Finding& f) {
    auto it = files.find(f.loc.file);
    if (it == files.end()) it = files.emplace(f.loc.file, readLines(f.loc.file)).first;
    const std::vector<std::string>& lines = it->second;
    const auto at = static_cast<std::size_t>(f.loc.line);
    return (at >= 1 && at <= lines.size() && suppresses(lines[at - 1], f.rule)) ||
           (at >= 2 && at - 1 <= lines.size() && suppresses(lines[at - 2], f.rule));
  };
  const std::size_t before = findings.size();
  findings.erase(std::remove_if(findings.begin(), findings.end(), suppressed), findings.end());
  return before - findings.size();
}

std::size_t dropBaselined(std::vector<Finding>& findings, const std::set<std::string>& accepted,
                          const std::string& root) {
  const std::size_t before = findings.size();
  findings.erase(
      std::remove_if(findings.begin(), findings.end(),
                     [&](const Finding& f) { return accepted.count(fingerprint(f, root)) > 0; }),
      findings.end());
  return before - findings.size();
}

}  // namespace memfloor::checker
