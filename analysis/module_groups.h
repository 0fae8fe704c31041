// ModuleGroups: the module paths that the sites' stacks carry (symbols/frame.h, kModuleFile),
// numbered in order of appearance; group 0 is "no module".
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace memfloor::analysis {

class ModuleGroups {
 public:
  static constexpr uint32_t kNone = 0;
  static constexpr std::string_view kNoneName = "(no module)";

  ModuleGroups() : names_{std::string(kNoneName)} {}

  // The group of a module path ("" gives kNone). Called once per new site.
  uint32_t groupOf(std::string_view path) {
    if (path.empty()) return kNone;
    auto [it, inserted] = ids_.try_emplace(std::string(path), static_cast<uint32_t>(names_.size()));
    if (inserted) names_.emplace_back(path);
    return it->second;
  }

  const std::string& name(uint32_t group) const { return names_.at(group); }
  size_t size() const { return names_.size(); }  // kNone counts

 private:
  std::vector<std::string> names_;
  std::unordered_map<std::string, uint32_t> ids_;
};

}  // namespace memfloor::analysis
