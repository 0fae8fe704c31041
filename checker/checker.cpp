// The checker after the facts are in: rules, suppressions, baseline, output, fix-its, exit code.
#include "checker/checker.h"

#include <filesystem>
#include <nlohmann/json.hpp>

#include "checker/findings_json.h"
#include "checker/fixit_apply.h"
#include "checker/rules/rule.h"
#include "checker/sarif.h"
#include "checker/suppression.h"
#include "checker/text_output.h"
#include "common/error.h"
#include "common/output_file.h"
#include "common/printable.h"

namespace memfloor::checker {
namespace {

std::string rootOf(const CheckOptions& options) {
  std::error_code ec;
  const std::string root =
      options.root.empty() ? std::filesystem::current_path(ec).string() : options.root;
  return std::filesystem::absolute(root, ec).lexically_normal().string();
}

}  // namespace

OutputFormat parseOutputFormat(std::string_view name) {
  if (name == "text") return OutputFormat::kText;
  if (name == "json") return OutputFormat::kJson;
  if (name == "sarif") return OutputFormat::kSarif;
  throw Error("--format: expected text, json or sarif, not '" + std::string(name) + "'");
}

CheckOutcome evaluate(Facts facts, const Config& config, const CheckOptions& options) {
  CheckOutcome outcome;
  outcome.findings = runRules(std::move(facts), config);
  outcome.suppressed = dropSuppressed(outcome.findings);
  if (!options.baseline.empty()) {
    outcome.baselined =
        dropBaselined(outcome.findings, readBaseline(options.baseline), rootOf(options));
  }
  return outcome;
}

int finishCheck(Facts facts, const Config& config, const CheckOptions& options,
                const std::vector<std::string>& unit_errors, std::ostream& out, std::ostream& err) {
  for (const std::string& path : options.load_facts) facts.merge(loadFacts(path));
  if (!options.emit_facts.empty()) {
    common::writeOutputFile(options.emit_facts, "facts file", toJson(facts).dump(1) + "\n",
                            options.load_facts);
  }
  const std::size_t units = facts.units.size();
  const CheckOutcome outcome = evaluate(std::move(facts), config, options);
  const std::string root = rootOf(options);
  switch (options.format) {
    case OutputFormat::kJson:
      out << findingsToJson(outcome.findings, unit_errors, root).dump(2) << "\n";
      break;
    case OutputFormat::kSarif:
      out << toSarif(outcome.findings, allRules(), root).dump(2) << "\n";
      break;
    case OutputFormat::kText:
      out << formatText(outcome.findings, root);
      break;
  }
  if (options.fix)
    err << "memfloor-check: applied " << applyFixits(outcome.findings) << " fix-its\n";
  for (const std::string& e : unit_errors) {
    err << "memfloor-check: error: " << common::printable(e) << "\n";  // file names from a walk
  }
  err << "memfloor-check: " << outcome.findings.size() << " finding(s) in " << units << " unit(s); "
      << outcome.suppressed << " suppressed, " << outcome.baselined << " in the baseline\n";
  if (!unit_errors.empty()) return 2;
  return outcome.findings.empty() ? 0 : 1;
}

Config resolveConfig(const std::string& explicit_path, const std::string& start) {
  if (!explicit_path.empty()) return loadConfig(explicit_path);
  if (auto found = findConfig(start.empty() ? "." : start)) return loadConfig(*found);
  return Config{};
}

}  // namespace memfloor::checker
