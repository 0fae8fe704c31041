// MF002 member retained across calls.
#include "checker/rules/mf002_retained_member.h"

#include <set>

namespace memfloor::checker {

RetainedMemberRule::RetainedMemberRule(const Config& config) : python_(config.mf002_python) {}

const RuleInfo& RetainedMemberRule::info() const {
  static const RuleInfo kInfo{
      "MF002", "member-retained-across-calls",
      "A heavy member assigned outside constructors (and the methods only they call) is "
      "released nowhere, so it keeps its last value between calls."};
  return kInfo;
}

void RetainedMemberRule::check(const Program& program, std::vector<Finding>& out) const {
  std::set<std::pair<std::string, std::string>> reported;  // (function, field)
  for (const FieldEvent& e : program.facts().events) {
    // A store of state the object rebuilds from itself (a running statistic, a lazily made
    // cache) is no call's data kept past its use.
    if (e.kind != EventKind::kAssign || !e.through_this || !e.per_call) continue;
    // Opt-in in Python: without types, a store there is mostly a memo, a setter or a recorder
    // kept by design, or not device memory at all (docs/checks/MF002.md).
    if (!python_ && isPythonSource(e.loc.file)) continue;
    const FunctionKind kind = program.kindOf(e.function);
    if (kind != FunctionKind::kMethod && kind != FunctionKind::kFunction) continue;
    // Stores made while objects are built (a registry filled from constructors) are kept for the
    // object's lifetime by design: there is no "last call" whose value outlives its use.
    if (program.setupOnly(e.function)) continue;
    if (!program.releasesOf(e.field).empty() || !reported.emplace(e.function, e.field).second) {
      continue;
    }
    const auto field = program.facts().fields.find(e.field);
    // A raw pointer does not own what it points to: storing one retains nothing.
    if (field != program.facts().fields.end() && field->second.kind == HandleKind::kRawPointer) {
      continue;
    }
    const std::string name = program.fieldName(e.field);
    const std::string record =
        field == program.facts().fields.end() ? "" : program.shortRecord(field->second.record);
    Finding f;
    f.rule = info().id;
    f.loc = e.loc;
    f.function = program.displayOf(e.function);
    f.field = name;
    f.message = "'" + name + "' is assigned in '" + f.function + "' and released nowhere in '" +
                record +
                "' or its subclasses (destructor aside): it keeps the last value's "
                "device memory until the next assignment";
    if (field != program.facts().fields.end()) {
      f.related.push_back({field->second.loc, "'" + name + "' is declared here"});
    }
    out.push_back(std::move(f));
  }
}

}  // namespace memfloor::checker
