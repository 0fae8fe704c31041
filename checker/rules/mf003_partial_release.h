// MF003 partial release: a method releases several heavy members that another method assigns, but
// not all of them.
#pragma once

#include "checker/rules/rule.h"

namespace memfloor::checker {

class PartialReleaseRule : public Rule {
 public:
  explicit PartialReleaseRule(const Config& config);
  const RuleInfo& info() const override;
  void check(const Program& program, std::vector<Finding>& out) const override;

 private:
  int min_released_;
};

}  // namespace memfloor::checker
