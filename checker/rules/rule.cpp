// The rule registry.
#include "checker/rules/rule.h"

#include <algorithm>
#include <map>
#include <tuple>

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

// Where MF001 reports a call after which a member is kept, and MF004 the unguarded dereference of
// that call's receiver (same file, line, function and handle), MF001 explains the line: the
// member is released after that call elsewhere. One finding then, MF001's, with MF004's as a note;
// the use still needs its guard once the release is added (docs/checks/MF001.md).
void foldDereferencesIntoMf001(std::vector<Finding>& findings) {
  using Place = std::tuple<std::string, int, std::string, std::string>;
  const auto place = [](const Finding& f) {
    return Place{f.loc.file, f.loc.line, f.function, f.field};
  };
  std::map<Place, std::size_t> mf001;
  for (std::size_t i = 0; i < findings.size(); ++i) {
    if (findings[i].rule == "MF001") mf001.emplace(place(findings[i]), i);
  }
  std::vector<bool> folded(findings.size(), false);
  for (std::size_t i = 0; i < findings.size(); ++i) {
    const Finding& f = findings[i];
    if (f.rule != "MF004") continue;
    auto it = mf001.find(place(f));
    if (it == mf001.end()) continue;
    findings[it->second].related.push_back({f.loc, f.message + " [MF004]"});
    folded[i] = true;
  }
  std::size_t kept = 0;
  for (std::size_t i = 0; i < findings.size(); ++i) {
    if (folded[i]) continue;
    if (kept != i) findings[kept] = std::move(findings[i]);  // never a self-move
    ++kept;
  }
  findings.resize(kept);
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

std::vector<Finding> runRules(Facts facts, const Config& config) {
  const Program program(std::move(facts));
  std::vector<Finding> findings;
  for (const auto& rule : makeRules(config)) rule->check(program, findings);
  foldDereferencesIntoMf001(findings);
  sortFindings(findings);
  return findings;
}

}  // namespace memfloor::checker
