// MF003 partial release.
#include "checker/rules/mf003_partial_release.h"

#include <algorithm>
#include <map>
#include <set>

namespace memfloor::checker {
namespace {

using Releases = std::map<std::string, SourceLoc>;  // field -> first release, or the call to it

struct MethodEvents {
  std::map<std::string, const FieldEvent*> assigned;  // field -> first assignment
  Releases released;
  std::set<std::string> managed;  // fields it takes elements out of: it looks after them
  SourceLoc last_assign;          // its last direct assignment
};

// What each method assigns and releases on its own object, directly.
std::map<std::string, MethodEvents> directEvents(const Program& program) {
  std::map<std::string, MethodEvents> methods;
  for (const FieldEvent& e : program.facts().events) {
    if (!e.through_this || program.kindOf(e.function) != FunctionKind::kMethod ||
        isInPlaceStore(e)) {
      continue;
    }
    if (isElementRemoval(e)) {
      methods[e.function].managed.insert(e.field);
    } else if (e.kind == EventKind::kAssign) {
      methods[e.function].assigned.try_emplace(e.field, &e);
      SourceLoc& last = methods[e.function].last_assign;
      if (!last.valid() || last < e.loc) last = e.loc;
    } else {
      methods[e.function].released.try_emplace(e.field, e.loc);
    }
  }
  return methods;
}

// What a method releases on its own object, directly or through the methods it calls on it (and
// theirs), the latter at its call of the helper. A cycle of calls stops at the method seen again.
class HelperReleases {
 public:
  HelperReleases(const Program& program, const std::map<std::string, MethodEvents>& direct)
      : program_(program), direct_(direct) {}

  const Releases& of(const std::string& method) {
    if (auto it = done_.find(method); it != done_.end()) return it->second;
    Releases released;
    if (auto it = direct_.find(method); it != direct_.end()) released = it->second.released;
    if (active_.insert(method).second) {
      for (const CallEdge* call : program_.selfCalls(method)) {
        if (program_.kindOf(call->callee) != FunctionKind::kMethod) continue;
        for (const auto& [field, at] : of(call->callee)) released.try_emplace(field, call->loc);
      }
      active_.erase(method);
    }
    return done_[method] = std::move(released);
  }

 private:
  const Program& program_;
  const std::map<std::string, MethodEvents>& direct_;
  std::map<std::string, Releases> done_;
  std::set<std::string> active_;
};

std::string withoutUnderscores(std::string name) {
  name.erase(std::remove(name.begin(), name.end(), '_'), name.end());
  return name;
}

// Python: a method releases a member that nothing assigns, while its class assigns one of the same
// name but for its underscores (`epoch_output` and `_epoch_output`). A rename left the release
// behind, and the member it meant is kept. The front end emits such pairs only.
void reportStaleReleases(const Program& program, const RuleInfo& info, std::vector<Finding>& out) {
  const Facts& facts = program.facts();
  std::map<std::string, const FieldEvent*> first_assign;
  for (const FieldEvent& e : facts.events) {
    if (e.kind == EventKind::kAssign) first_assign.try_emplace(e.field, &e);
  }
  std::set<std::pair<std::string, std::string>> reported;
  for (const FieldEvent& e : facts.events) {
    if (e.kind != EventKind::kRelease || !e.through_this || !isNulling(e) ||
        !isPythonSource(e.loc.file) || first_assign.count(e.field) ||
        program.setupOnly(e.function) || !reported.emplace(e.function, e.field).second) {
      continue;
    }
    const auto released = facts.fields.find(e.field);
    if (released == facts.fields.end()) continue;
    for (const auto& [key, meant] : facts.fields) {
      const auto assigned = first_assign.find(key);
      if (key == e.field || assigned == first_assign.end() ||
          meant.record != released->second.record ||
          withoutUnderscores(meant.name) != withoutUnderscores(released->second.name)) {
        continue;
      }
      Finding f;
      f.rule = info.id;
      f.loc = e.loc;
      f.function = program.displayOf(e.function);
      f.field = meant.name;
      f.message = "'" + f.function + "' releases '" + released->second.name +
                  "', which nothing assigns, and keeps '" + meant.name + "', assigned by '" +
                  program.displayOf(assigned->second->function) + "': a name left by a rename?";
      f.related.push_back({assigned->second->loc, "'" + meant.name + "' is assigned here"});
      out.push_back(std::move(f));
      break;
    }
  }
}

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
  reportStaleReleases(program, info(), out);
  std::map<std::string, MethodEvents> methods = directEvents(program);
  HelperReleases closure(program, methods);
  std::map<std::string, Releases> released;
  for (const auto& [key, fact] : program.facts().functions) {
    if (fact.kind == FunctionKind::kMethod) released[key] = closure.of(key);
  }
  // One release, one judgement: a helper that is only called by methods of its class on their own
  // object, each releasing more, is judged as part of them; a caller that releases nothing beyond
  // one of its helpers leaves the judgement to the helper.
  std::set<std::string> not_judged;
  std::map<std::string, bool> only_part;  // helper -> every call of it is part of a larger release
  for (const CallEdge& call : program.facts().call_edges) {
    auto helper = released.find(call.callee);
    if (helper == released.end() || helper->second.empty() || call.callee == call.caller) continue;
    auto caller = released.find(call.caller);
    const bool on_self = call.on_this && caller != released.end();
    if (on_self && caller->second.size() == helper->second.size()) not_judged.insert(call.caller);
    const bool part = on_self && caller->second.size() > helper->second.size() &&
                      program.recordOf(call.caller) == program.recordOf(call.callee);
    bool& only = only_part.try_emplace(call.callee, true).first->second;
    only = only && part;
  }
  for (const auto& [helper, part] : only_part) {
    if (part) not_judged.insert(helper);
  }
  // A method that stores into its object, or runs a method of its own, after its releases empties
  // state to build it anew (a `train_batch` that resets its loss totals, then runs the schedule
  // that fills them), it does not tear down.
  for (const auto& [method, r] : released) {
    if (r.empty()) continue;
    SourceLoc last = r.begin()->second;
    for (const auto& [field, at] : r) last = std::max(last, at);
    const SourceLoc& assigned = methods[method].last_assign;
    bool works_after = assigned.valid() && last < assigned;
    for (const CallEdge* call : program.selfCalls(method)) works_after |= last < call->loc;
    if (works_after) not_judged.insert(method);
  }
  for (auto& [method, r] : released) methods[method].released = std::move(r);
  // The methods of each record, in the order of their keys: a releaser is compared with those of
  // its own record only, not with every method of the program.
  std::map<std::string, std::vector<const std::pair<const std::string, MethodEvents>*>> by_record;
  for (const auto& method : methods) by_record[program.recordOf(method.first)].push_back(&method);
  for (const auto& [releaser, r] : methods) {
    // Set-up code that sets members to None as defaults before building them releases nothing.
    if (static_cast<int>(r.released.size()) < min_released_ || not_judged.count(releaser) ||
        program.setupOnly(releaser)) {
      continue;
    }
    std::set<std::string> reported;
    for (const auto* method : by_record[program.recordOf(releaser)]) {
      const auto& [assigner, a] = *method;
      if (assigner == releaser) continue;
      int common = 0;
      for (const auto& [field, event] : a.assigned) common += r.released.count(field) ? 1 : 0;
      if (common < min_released_) continue;
      for (const auto& [field, event] : a.assigned) {
        if (r.released.count(field) || r.assigned.count(field) || r.managed.count(field) ||
            !reported.insert(field).second) {
          continue;
        }
        const std::string name = program.fieldName(field);
        Finding f;
        f.rule = info().id;
        f.loc = r.released.begin()->second;
        for (const auto& [rf, at] : r.released) f.loc = std::min(f.loc, at);
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

}  // namespace memfloor::checker
