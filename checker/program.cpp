// The merged facts as one program, indexed for the rules.
#include "checker/program.h"

#include <algorithm>
#include <string_view>
#include <unordered_map>

namespace memfloor::checker {

Program::Program(Facts facts) : facts_(std::move(facts)) {
  std::sort(facts_.events.begin(), facts_.events.end(),
            [](const FieldEvent& a, const FieldEvent& b) { return a.loc < b.loc; });
  for (const FieldEvent& e : facts_.events) {
    const bool release = e.kind == EventKind::kRelease;
    // Taking one element out does not empty the object: no helper "releases its state" by it.
    if (e.through_this && !isElementRemoval(e) && !isInPlaceStore(e))
      (release ? releases_ : assigns_).emplace(e.function, e.field);
    // Destructors end the object; constructors and assignments release the moved-from source.
    const FunctionKind kind = kindOf(e.function);
    if (release && (kind == FunctionKind::kMethod || kind == FunctionKind::kFunction)) {
      releases_of_[e.field].push_back(&e);
    }
  }
  for (const CallEdge& edge : facts_.call_edges) calls_by_caller_.emplace(edge.caller, &edge);
  findSetupOnly();
}

// The least set closed under "has callers, and each is a constructor or in the set": every
// member is reached from constructors only, through a chain of calls (a cycle alone proves
// nothing). A method's callers include those of the methods it overrides (a virtual call may
// reach it).
void Program::findSetupOnly() {
  // Views of the strings of facts_, which stay in place: no copy of a name per call edge.
  using Name = std::string_view;
  // The functions by view of their keys: a lookup per caller and per override, in the program's
  // largest loops, hashes a view rather than building a string to walk the ordered map with.
  std::unordered_map<Name, const FunctionFact*> by_key;
  by_key.reserve(facts_.functions.size());
  for (const auto& [key, function] : facts_.functions) by_key.emplace(key, &function);
  const auto isConstructor = [&](Name function) {
    auto it = by_key.find(function);
    return it != by_key.end() &&
           (it->second->kind == FunctionKind::kConstructor || isSetupByName(*it->second));
  };
  std::unordered_map<Name, std::vector<Name>> callers;
  for (const CallEdge& edge : facts_.call_edges) callers[edge.callee].push_back(edge.caller);
  std::unordered_map<Name, std::vector<Name>> inherited;  // callers of the methods overridden
  for (const auto& [key, function] : facts_.functions) {
    std::vector<Name>* into = nullptr;
    for (std::vector<Name> bases(function.overrides.begin(), function.overrides.end());
         !bases.empty();) {
      const Name base = bases.back();
      bases.pop_back();
      if (auto it = callers.find(base); it != callers.end()) {
        if (into == nullptr) into = &inherited[key];
        into->insert(into->end(), it->second.begin(), it->second.end());
      }
      if (auto it = by_key.find(base); it != by_key.end())
        bases.insert(bases.end(), it->second->overrides.begin(), it->second->overrides.end());
    }
  }
  for (auto& [key, from] : inherited) {
    std::vector<Name>& mine = callers[key];
    mine.insert(mine.end(), from.begin(), from.end());
  }
  // A worklist, not passes over every callee until none is added (as many passes as the longest
  // chain of calls): each function waits for its callers that are not constructors, and joins the
  // set when the last of them has.
  std::unordered_map<Name, std::size_t> waiting;        // callee -> callers not yet in
  std::unordered_map<Name, std::vector<Name>> callees;  // caller -> the callees waiting on it
  std::vector<Name> ready;
  for (auto& [callee, from] : callers) {
    std::sort(from.begin(), from.end());
    from.erase(std::unique(from.begin(), from.end()), from.end());
    std::size_t& count = waiting[callee];
    for (const Name c : from) {
      if (isConstructor(c)) continue;
      ++count;
      callees[c].push_back(callee);
    }
    if (count == 0) ready.push_back(callee);
  }
  while (!ready.empty()) {
    const Name function = ready.back();
    ready.pop_back();
    if (!setup_only_.emplace(function).second) continue;
    if (auto it = callees.find(function); it != callees.end()) {
      for (const Name callee : it->second) {
        if (--waiting[callee] == 0) ready.push_back(callee);
      }
    }
  }
}

FunctionKind Program::kindOf(const std::string& function) const {
  auto it = facts_.functions.find(function);
  return it == facts_.functions.end() ? FunctionKind::kFunction : it->second.kind;
}

std::string Program::displayOf(const std::string& function) const {
  auto it = facts_.functions.find(function);
  return it == facts_.functions.end() ? function : it->second.display;
}

std::string Program::recordOf(const std::string& function) const {
  auto it = facts_.functions.find(function);
  return it == facts_.functions.end() ? std::string() : it->second.record;
}

std::string Program::fieldName(const std::string& field) const {
  auto it = facts_.fields.find(field);
  return it == facts_.fields.end() ? field : it->second.name;
}

std::string Program::shortRecord(const std::string& record) const {
  const std::size_t colon = record.rfind("::");
  return colon == std::string::npos ? record : record.substr(colon + 2);
}

bool Program::assignsDirectly(const std::string& function, const std::string& field) const {
  return assigns_.count({function, field}) > 0;
}

bool Program::releasesDirectly(const std::string& function, const std::string& field) const {
  return releases_.count({function, field}) > 0;
}

bool Program::releasesState(const std::string& function) const {
  const auto kind = kindOf(function);
  if (kind == FunctionKind::kConstructor || kind == FunctionKind::kAssignment) return false;
  const auto first = releases_.lower_bound({function, ""});
  if (first == releases_.end() || first->first != function) return false;
  const auto assigned = assigns_.lower_bound({function, ""});
  return assigned == assigns_.end() || assigned->first != function;
}

bool Program::setupOnly(const std::string& function) const {
  if (kindOf(function) == FunctionKind::kConstructor || setup_only_.count(function) > 0)
    return true;
  auto it = facts_.functions.find(function);
  return it != facts_.functions.end() && isSetupByName(it->second);
}

bool isSetupByName(const FunctionFact& function) {
  if (!isPythonSource(function.loc.file) || function.kind != FunctionKind::kMethod) return false;
  std::string_view name = function.key;
  name.remove_prefix(name.rfind('.') == std::string_view::npos ? 0 : name.rfind('.') + 1);
  while (name.starts_with('_')) name.remove_prefix(1);
  for (const std::string_view prefix : {"init", "setup", "set_up", "configure"}) {
    if (name == prefix || (name.starts_with(prefix) && name[prefix.size()] == '_')) return true;
  }
  return name.starts_with("initiali") || name == "reset_parameters" || name.starts_with("build_");
}

std::vector<const CallEdge*> Program::selfCalls(const std::string& function) const {
  std::vector<const CallEdge*> calls;
  const auto [first, last] = calls_by_caller_.equal_range(function);
  for (auto it = first; it != last; ++it) {
    if (it->second->on_this) calls.push_back(it->second);
  }
  return calls;
}

bool Program::checksNull(const std::string& function, const std::string& field) const {
  auto it = facts_.functions.find(function);
  if (it == facts_.functions.end()) return false;
  const std::vector<std::string>& fields = it->second.null_checks;
  return std::find(fields.begin(), fields.end(), field) != fields.end();
}

const std::vector<const FieldEvent*>& Program::releasesOf(const std::string& field) const {
  static const std::vector<const FieldEvent*> kNone;
  auto it = releases_of_.find(field);
  return it == releases_of_.end() ? kNone : it->second;
}

bool Program::released(const PathFacts& path) const {
  return releaseOf(path).loc.valid() || path.direct;
}

Program::Release Program::releaseOf(const PathFacts& path) const {
  if (path.direct) return {path.event, path.event_idiom, ""};
  for (const Candidate& c : path.candidates) {
    const bool releases =
        c.field.empty() ? releasesState(c.method) : releasesDirectly(c.method, c.field);
    if (c.all_paths && releases) return {c.loc, "call", c.name, !c.field.empty()};
  }
  return {};
}

bool Program::guarded(const PathFacts& path) const {
  return path.direct ||
         std::any_of(path.candidates.begin(), path.candidates.end(), [&](const Candidate& c) {
           return (c.all_paths && assignsDirectly(c.method, c.field)) ||
                  (c.checked_paths && checksNull(c.method, c.field));
         });
}

}  // namespace memfloor::checker
