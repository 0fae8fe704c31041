// MF004 use after release: a heavy member released somewhere is dereferenced with no null check and
// no assignment on every path before the use.
#pragma once

#include "checker/rules/rule.h"

namespace memfloor::checker {

class UseAfterReleaseRule : public Rule {
 public:
  explicit UseAfterReleaseRule(const Config& config);
  const RuleInfo& info() const override;
  void check(const Program& program, std::vector<Finding>& out) const override;

 private:
  bool python_;  // report dereferences at Python sites (the configuration's mf004_python)
};

}  // namespace memfloor::checker
