// MF003 partial release.
#include "analyzer/rules/mf003_partial_release.h"

#include <map>
#include <set>

namespace memfloor::analyzer {
namespace {

struct MethodEvents {
  std::map<std::string, const FieldEvent*> assigned;  // field -> first assignment
  std::map<std::string, const FieldEvent*> released;  // field -> first release
};

}  // namespace

PartialReleaseRule::PartialReleaseRule(const Config& config)
    : min_released_(config.mf003_min_released) {}

const RuleInfo& PartialReleaseRule::info() const {
  static const RuleInfo kInfo{"MF003", "partial-release",
                              "A method releases several heavy members assigned by another method "
                              "of the class but keeps others."};
  return kInfo;
}

void PartialReleaseRule::check(const Program& program, std::vector<Finding>& out) const {
  std::map<std::string, MethodEvents> methods;
  for (const FieldEvent& e : program.facts().events) {
    if (!e.through_this || program.kindOf(e.function) != FunctionKind::kMethod) continue;
    auto& side =
        e.kind == EventKind::kAssign ? methods[e.function].assigned : methods[e.function].released;
    side.try_emplace(e.field, &e);
  }
  const auto recordOf = [&](const std::string& function) {
    auto it = program.facts().functions.find(function);
    return it == program.facts().functions.end() ? std::string() : it->second.record;
  };
  for (const auto& [releaser, r] : methods) {
    if (static_cast<int>(r.released.size()) < min_released_) continue;
    std::set<std::string> reported;
    for (const auto& [assigner, a] : methods) {
      if (assigner == releaser || recordOf(assigner) != recordOf(releaser)) continue;
      int common = 0;
      for (const auto& [field, event] : a.assigned) common += r.released.count(field) ? 1 : 0;
      if (common < min_released_) continue;
      for (const auto& [field, event] : a.assigned) {
        if (r.released.count(field) || r.assigned.count(field) || !reported.insert(field).second) {
          continue;
        }
        const std::string name = program.fieldName(field);
        Finding f;
        f.rule = info().id;
        f.loc = r.released.begin()->second->loc;
        for (const auto& [rf, re] : r.released) f.loc = std::min(f.loc, re->loc);
        f.function = program.displayOf(releaser);
        f.field = name;
        f.message = "'" + f.function + "' releases " + std::to_string(common) +
                    " members assigned by '" + program.displayOf(assigner) + "' but keeps '" +
                    name + "'";
        f.related.push_back({event->loc, "'" + name + "' is assigned here"});
        out.push_back(std::move(f));
      }
    }
  }
}

}  // namespace memfloor::analyzer
