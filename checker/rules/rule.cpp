// The rule registry.
#include "checker/rules/rule.h"

#include <algorithm>

#include "checker/rules/mf001_release_after_use.h"
#include "checker/rules/mf002_retained_member.h"
#include "checker/rules/mf003_partial_release.h"
#include "checker/rules/mf004_use_after_release.h"

namespace memfloor::checker {
namespace {

std::vector<std::unique_ptr<Rule>> everyRule(const Config& config) {
  std::vector<std::unique_ptr<Rule>> rules;
  rules.push_back(std::make_unique<ReleaseAfterUseRule>(config));
  rules.push_back(std::make_unique<RetainedMemberRule>(config));
  rules.push_back(std::make_unique<PartialReleaseRule>(config));
  rules.push_back(std::make_unique<UseAfterReleaseRule>(config));
  return rules;
}

}  // namespace

std::vector<std::unique_ptr<Rule>> makeRules(const Config& config) {
  std::vector<std::unique_ptr<Rule>> rules = everyRule(config);
  const auto& off = config.disabled_rules;
  rules.erase(std::remove_if(rules.begin(), rules.end(),
                             [&](const std::unique_ptr<Rule>& r) {
                               return std::find(off.begin(), off.end(), r->info().id) != off.end();
                             }),
              rules.end());
  return rules;
}

std::vector<RuleInfo> allRules() {
  std::vector<RuleInfo> infos;
  for (const auto& rule : everyRule(Config{})) infos.push_back(rule->info());
  return infos;
}

std::vector<Finding> runRules(const Facts& facts, const Config& config) {
  const Program program(facts);
  std::vector<Finding> findings;
  for (const auto& rule : makeRules(config)) rule->check(program, findings);
  sortFindings(findings);
  return findings;
}

}  // namespace memfloor::checker
