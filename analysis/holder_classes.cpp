// Holder classes: the rules, one after the other, and their one-line reasons.
#include "analysis/holder_classes.h"

#include <fmt/core.h>

namespace memfloor::analysis {

HolderClass timeClass(const BlockFate& fate) {
  if (fate.born_persistent) {
    return {RetentionClass::kPersistent,
            "time: persistent (made before the first counted iteration)"};
  }
  if (fate.freed_in_run) {
    return {RetentionClass::kInterIteration, "time: inter-iteration (freed before the run's end)"};
  }
  switch (fate.site_fate.value_or(RetentionClass::kPersistent)) {
    case RetentionClass::kLeak:
    case RetentionClass::kCached:  // a reserved level's: no census matches segments of a device
                                   // with blocks, so not met; what accumulates is a leak here
      return {RetentionClass::kLeak,
              "time: leak (its site keeps allocations of several iterations to the run's end)"};
    case RetentionClass::kInterIteration:
      return {RetentionClass::kInterIteration,
              "time: inter-iteration (its site's other allocations are freed in the run)"};
    case RetentionClass::kPersistent:
      break;
  }
  return {RetentionClass::kPersistent, "time: persistent (made once and kept to the run's end)"};
}

std::string_view containerOf(std::string_view path) {
  if (path.empty() || path.back() != ']') return {};
  const size_t open = path.rfind('[');
  return open == std::string_view::npos || open == 0 ? std::string_view{} : path.substr(0, open);
}

std::string censusName(uint32_t step, uint32_t iteration) {
  return step != 0 ? fmt::format("the census at step {}", step)
                   : fmt::format("the census after iteration {}", iteration);
}

HolderClass HolderHistory::classify(
    const Entry& e, const std::unordered_map<std::string_view, size_t>& elements) const {
  if (e.role != trace::HeldRole::kOther) {
    return {RetentionClass::kPersistent, fmt::format("role: {}", trace::toString(e.role))};
  }
  if (name_.empty()) return e.time;  // the device's first census
  const std::string_view container = containerOf(e.path);
  if (!container.empty()) {
    auto before = containers_.find(std::string(container));
    const size_t now = elements.at(container);
    if (before != containers_.end() && now > before->second) {
      return {RetentionClass::kLeak, fmt::format("container grew from {} to {} elements since {}",
                                                 before->second, now, name_)};
    }
  }
  auto seen = paths_.find(std::string(e.path));
  if (seen == paths_.end()) return e.time;
  if (seen->second.block == e.block) {
    return {RetentionClass::kPersistent, "same storage since " + seen->second.since};
  }
  return {RetentionClass::kInterIteration, "replaced since " + name_};
}

std::vector<HolderClass> HolderHistory::next(const std::vector<Entry>& entries,
                                             const std::string& name) {
  std::unordered_map<std::string_view, size_t> elements;
  for (const Entry& e : entries) {
    const std::string_view container = containerOf(e.path);
    if (!container.empty()) ++elements[container];
  }
  std::vector<HolderClass> out;
  out.reserve(entries.size());
  for (const Entry& e : entries) out.push_back(classify(e, elements));

  std::unordered_map<std::string, Seen> paths;
  for (const Entry& e : entries) {
    auto before = paths_.find(std::string(e.path));
    const bool same = before != paths_.end() && before->second.block == e.block;
    paths[std::string(e.path)] = {e.block, same ? before->second.since : name};
  }
  paths_ = std::move(paths);
  containers_.clear();
  for (const auto& [container, count] : elements) containers_[std::string(container)] = count;
  name_ = name;
  return out;
}

}  // namespace memfloor::analysis
