// MF004 use after release.
#include "checker/rules/mf004_use_after_release.h"

#include <algorithm>
#include <set>

namespace memfloor::checker {

UseAfterReleaseRule::UseAfterReleaseRule(const Config& config) : python_(config.mf004_python) {}

const RuleInfo& UseAfterReleaseRule::info() const {
  static const RuleInfo kInfo{"MF004", "use-after-release",
                              "A heavy member that is released somewhere is dereferenced without a "
                              "null check or a dominating assignment."};
  return kInfo;
}

void UseAfterReleaseRule::check(const Program& program, std::vector<Finding>& out) const {
  std::set<std::pair<std::string, std::string>> reported;  // (function, field)
  for (const DerefSite& d : program.facts().derefs) {
    // What set-up code does (a member set to None as a default, then built) leaves no null
    // behind for the object's use; a release that leaves an empty container leaves no null.
    if (program.setupOnly(d.function) || (!python_ && isPythonSource(d.loc.file))) continue;
    const auto& releases = program.releasesOf(d.field);
    const auto release_it = std::find_if(
        releases.begin(), releases.end(),
        [&](const FieldEvent* e) { return isNulling(*e) && !program.setupOnly(e->function); });
    if (release_it == releases.end() || program.guarded(d.guarded) ||
        !reported.emplace(d.function, d.field).second) {
      continue;
    }
    const FieldEvent& release = **release_it;
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
