// MF002 member retained across calls: a heavy member assigned outside constructors (and the
// methods only they call) and released nowhere keeps its last value until the next assignment.
#pragma once

#include "checker/rules/rule.h"

namespace memfloor::checker {

class RetainedMemberRule : public Rule {
 public:
  explicit RetainedMemberRule(const Config& config);
  const RuleInfo& info() const override;
  void check(const Program& program, std::vector<Finding>& out) const override;

 private:
  bool python_;  // report stores at Python sites (the configuration's mf002_python)
};

}  // namespace memfloor::checker
