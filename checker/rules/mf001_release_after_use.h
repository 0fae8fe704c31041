// MF001 release-after-use deviance: a site that calls m() on an object and leaves it unreleased
// where other sites release the same field (or the same type) after the same call.
#pragma once

#include "checker/rules/rule.h"

namespace memfloor::checker {

class ReleaseAfterUseRule : public Rule {
 public:
  explicit ReleaseAfterUseRule(const Config& config);
  const RuleInfo& info() const override;
  void check(const Program& program, std::vector<Finding>& out) const override;

 private:
  int min_sites_;
  double min_ratio_;
  std::vector<std::string> terminal_methods_;
};

}  // namespace memfloor::checker
