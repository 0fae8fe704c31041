// The rule interface: options read in the constructor, check() over the whole program.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "checker/config.h"
#include "checker/finding.h"
#include "checker/program.h"

namespace memfloor::checker {

struct RuleInfo {
  std::string id;       // MF001: stable, used by suppressions, baselines and SARIF
  std::string name;     // release-after-use-deviance
  std::string summary;  // one sentence
};

class Rule {
 public:
  virtual ~Rule() = default;
  virtual const RuleInfo& info() const = 0;
  virtual void check(const Program& program, std::vector<Finding>& out) const = 0;
};

// Every rule, in id order; those in config.disabled_rules are left out.
std::vector<std::unique_ptr<Rule>> makeRules(const Config& config);
// The metadata of every rule (for SARIF and --list-rules), enabled or not.
std::vector<RuleInfo> allRules();

// All findings of the enabled rules on `facts`, sorted. An MF004 at the receiver of a call that
// MF001 reports (same line, function and handle) is folded into the MF001 finding as a note.
// The program the rules read owns the facts: a caller done with them moves them in (on the facts of
// torch/'s Python sources, a copy took 7 % of memfloor-check's own time).
std::vector<Finding> runRules(Facts facts, const Config& config);

}  // namespace memfloor::checker
