// MF004 use after release.
#include "checker/rules/mf004_use_after_release.h"

#include <set>

namespace memfloor::checker {

UseAfterReleaseRule::UseAfterReleaseRule(const Config&) {}

const RuleInfo& UseAfterReleaseRule::info() const {
  static const RuleInfo kInfo{"MF004", "use-after-release",
                              "A heavy member that is released somewhere is dereferenced without a "
                              "null check or a dominating assignment."};
  return kInfo;
}

void UseAfterReleaseRule::check(const Program& program, std::vector<Finding>& out) const {
  std::set<std::pair<std::string, std::string>> reported;  // (function, field)
  for (const DerefSite& d : program.facts().derefs) {
    const auto& releases = program.releasesOf(d.field);
    if (releases.empty() || program.guarded(d.guarded) ||
        !reported.emplace(d.function, d.field).second) {
      continue;
    }
    const FieldEvent& release = *releases.front();
    Finding f;
    f.rule = info().id;
    f.loc = d.loc;
    f.function = program.displayOf(d.function);
    f.field = d.handle;
    f.message = "'" + d.handle + "' is dereferenced in '" + f.function +
                "' with no null check and no assignment before it on every path, but '" +
                program.displayOf(release.function) + "' releases it";
    f.related.push_back({release.loc, "'" + program.fieldName(d.field) + "' is released here (" +
                                          release.idiom + ")"});
    out.push_back(std::move(f));
  }
}

}  // namespace memfloor::checker
