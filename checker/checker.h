// The checker after the facts are in: rules, suppressions, baseline, output, fix-its, exit code.
#pragma once

#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "checker/config.h"
#include "checker/facts.h"
#include "checker/finding.h"

namespace memfloor::checker {

enum class OutputFormat : uint8_t { kText, kJson, kSarif };

// "text", "json" or "sarif"; throws memfloor::Error naming --format otherwise. Called before any
// work, so a mistyped format writes nothing.
OutputFormat parseOutputFormat(std::string_view name);

struct CheckOptions {
  OutputFormat format = OutputFormat::kText;
  std::string root;      // file names are written relative to it (default: cwd)
  std::string baseline;  // a findings document of accepted findings
  bool fix = false;
  std::string emit_facts;               // write the merged facts here
  std::vector<std::string> load_facts;  // facts documents merged before the rules run
};

struct CheckOutcome {
  std::vector<Finding> findings;  // reported
  std::size_t suppressed = 0;
  std::size_t baselined = 0;
};

// Rules on the facts, then in-source suppressions, then the baseline. The facts are the rules'
// (runRules): pass them moved where the caller is done with them.
CheckOutcome evaluate(Facts facts, const Config& config, const CheckOptions& options);

// Everything after fact collection: loads and emits facts, evaluates, prints `out`, applies
// fix-its. Returns the exit code: 0 no findings, 1 findings, 2 a unit failed (errors are printed
// to `err`). Throws memfloor::Error on unusable input.
int finishCheck(Facts facts, const Config& config, const CheckOptions& options,
                const std::vector<std::string>& unit_errors, std::ostream& out, std::ostream& err);

// The configuration for a run: `explicit_path` when given, else the nearest .memfloor-check.json
// above `start`, else the defaults.
Config resolveConfig(const std::string& explicit_path, const std::string& start);

}  // namespace memfloor::checker
