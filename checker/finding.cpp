// Findings: fingerprints, relative paths and the canonical order.
#include "checker/finding.h"

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <tuple>

namespace memfloor::checker {

std::string relativePath(const std::string& file, const std::string& root) {
  if (root.empty()) return file;
  const std::filesystem::path rel = std::filesystem::path(file).lexically_relative(root);
  if (rel.empty() || *rel.begin() == "..") return file;
  return rel.generic_string();
}

constexpr std::uint64_t kFnvOffsetBasis = 14695981039346656037ull;  // FNV-1a, 64-bit
constexpr std::uint64_t kFnvPrime = 1099511628211ull;

std::string fingerprint(const Finding& finding, const std::string& root) {
  const std::string text = finding.rule + '\n' + relativePath(finding.loc.file, root) + '\n' +
                           finding.function + '\n' + finding.field + '\n' + finding.message;
  std::uint64_t hash = kFnvOffsetBasis;
  for (const char c : text) {
    hash ^= static_cast<unsigned char>(c);
    hash *= kFnvPrime;
  }
  static const char kHex[] = "0123456789abcdef";
  std::string out(16, '0');
  for (int i = 15; i >= 0; --i, hash >>= 4) out[static_cast<std::size_t>(i)] = kHex[hash & 15];
  return out;
}

void sortFindings(std::vector<Finding>& findings) {
  const auto key = [](const Finding& f) {
    return std::tie(f.loc.file, f.loc.line, f.loc.column, f.rule, f.message);
  };
  std::sort(findings.begin(), findings.end(),
            [&](const Finding& a, const Finding& b) { return key(a) < key(b); });
  findings.erase(std::unique(findings.begin(), findings.end(),
                             [&](const Finding& a, const Finding& b) { return key(a) == key(b); }),
                 findings.end());
}

}  // namespace memfloor::checker
