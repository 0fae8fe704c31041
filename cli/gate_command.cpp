// memfloor gate: compares a current report with a baseline; the CI verdict (docs/gate.md).
#include "cli/gate_command.h"

#include <fmt/core.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <memory>

#include "cli/command.h"
#include "cli/diagnostic.h"
#include "common/error.h"
#include "common/json_input.h"
#include "common/output_file.h"
#include "report/report_file.h"
#include "reports/gate_output.h"
#include "reports/report_table.h"

namespace memfloor::cli {
namespace {

reports::ReportMetrics load(const std::string& path, std::string_view role) {
  try {
    return reports::extractMetrics(report::loadReportJson(path), path);
  } catch (const Error& e) {
    throw Error(fmt::format("{} report: {}", role, e.what()));
  }
}

// A report the gate can compare: some run of it has a complete iteration (a steady idle window).
// A header-only trace's report, or one with "runs": [], would otherwise pass with nothing checked.
void requireMeasured(const reports::ReportMetrics& report, const std::string& what) {
  if (std::none_of(report.runs.begin(), report.runs.end(),
                   [](const reports::RunMetrics& r) { return r.measured; })) {
    throw Error(fmt::format("{} report: {}: nothing to compare: no run has a complete iteration",
                            what, report.path));
  }
}

// Copies current to the baseline path (through a temporary file and a rename, as every output).
// The bytes checked are the bytes copied: the file is read once.
int updateBaseline(const GateRequest& request, std::FILE* out) {
  reports::ReportMetrics current;
  std::string text;
  try {
    text = common::readJsonFile(request.current_path, "report");
    current = reports::extractMetrics(
        common::parseJsonDocument(text, report::kReportDocument, request.current_path),
        request.current_path);
  } catch (const Error& e) {
    throw Error(fmt::format("current report: {}", e.what()));
  }
  requireMeasured(current, "current");  // a baseline no later gate could compare with
  common::writeOutputFile(request.baseline_path, "baseline", text, {request.current_path});
  printWritten(
      request.baseline_path,
      fmt::format(": the baseline, copied from {} ({} run{}, {} finding{}); nothing was "
                  "compared",
                  request.current_path, current.runs.size(), current.runs.size() == 1 ? "" : "s",
                  current.findings.size(), current.findings.size() == 1 ? "" : "s"),
      out);
  return kExitOk;
}

// A percentage: a finite number, 0 or more (CLI11's NonNegativeNumber prints DBL_MAX as the bound).
std::string checkPercent(std::string& text) {
  char* end = nullptr;
  double value = std::strtod(text.c_str(), &end);
  if (end == text.c_str() || *end != '\0' || !std::isfinite(value) || value < 0) {
    return fmt::format("'{}' is not a percentage (a number, 0 or more)", text);
  }
  return "";
}

// A size: digits, then optionally a unit (b; k, m, g, t, p, e with i and b optional, all
// 1024-based), written back as bytes. Negative, fractional or past 2^64 - 1: an error, not a
// value wrapped around to a huge threshold.
std::string checkSize(std::string& text) {
  const std::string bad =
      fmt::format("'{}' is not a size (bytes, or 4MiB, 512KiB; 0 or more)", text);
  uint64_t value = 0;
  const char* end = text.data() + text.size();
  auto [at, ec] = std::from_chars(text.data(), end, value);
  if (at == text.data()) return bad;
  if (ec == std::errc::result_out_of_range) return bad + ": too large";
  std::string unit(at, end);
  std::transform(unit.begin(), unit.end(), unit.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  constexpr std::string_view kUnits = "kmgtpe";  // 2^10, 2^20, ...
  constexpr unsigned kUnitShift = 10;
  unsigned shift = 0;
  if (!unit.empty() && unit != "b") {
    const size_t index = kUnits.find(unit.front());
    const std::string_view rest = std::string_view(unit).substr(1);
    if (index == std::string_view::npos ||
        !(rest.empty() || rest == "b" || rest == "i" || rest == "ib")) {
      return bad;
    }
    shift = kUnitShift * static_cast<unsigned>(index + 1);
  }
  if (shift > 0 && value > (UINT64_MAX >> shift)) return bad + ": too large";
  text = std::to_string(value << shift);
  return "";
}

}  // namespace

int runGate(const GateRequest& request, std::FILE* out) {
  if (request.update_baseline) return updateBaseline(request, out);
  reports::ReportMetrics baseline = load(request.baseline_path, "baseline");
  reports::ReportMetrics current = load(request.current_path, "current");
  requireMeasured(baseline, "baseline");
  requireMeasured(current, "current");
  reports::GateResult result = reports::runGate(baseline, current, request.thresholds);
  if (result.checks.empty()) {
    throw Error(fmt::format("gate: nothing compared: no run of {} pairs with a run of {}",
                            request.current_path, request.baseline_path));
  }
  for (const reports::GateResult::ProgramPair& programs : result.other_programs) {
    printWarning(fmt::format(
        "gate: different programs: the baseline {} ran '{}', the current {} ran '{}'; their "
        "memory is compared all the same",
        request.baseline_path, programs.baseline, request.current_path, programs.current));
  }

  fmt::print(out, "{}", reports::formatGateTable(result));
  if (request.annotations) fmt::print(out, "{}", reports::formatGateAnnotations(result));
  if (!request.markdown_path.empty()) {
    common::appendOutputFile(request.markdown_path, "Markdown summary",
                             reports::formatGateMarkdown(result));
  }
  if (!request.json_path.empty()) {
    common::writeOutputFile(request.json_path, "gate result",
                            reports::toJson(result).dump(2) + "\n",
                            {request.baseline_path, request.current_path});
    printWritten(request.json_path, "", out);
  }
  return result.regression ? kExitFinding : kExitOk;
}

void addGateCommand(CLI::App& app, int& exit_code) {
  auto request = std::make_shared<GateRequest>();
  reports::GateThresholds& t = request->thresholds;
  CLI::App* cmd = app.add_subcommand(
      "gate", "Compare a report with a baseline: exit 0 pass, 1 regression, 2 unusable input");
  cmd->add_option("--baseline", request->baseline_path, "the baseline report.json")
      ->type_name("FILE")
      ->required();
  cmd->add_option("current", request->current_path, "the current report.json")
      ->type_name("FILE")
      ->required();

  // SIZE options take bytes or a unit: 512KiB, 4MiB, 1GiB (kB, MB, ... are 1024-based too).
  auto bytes = [cmd](const char* name, uint64_t& value, const char* what) {
    cmd->add_option(
           name, value,
           fmt::format("{} (bytes or 4MiB, 512KiB; default {})", what, report::formatBytes(value)))
        ->type_name("SIZE")
        ->transform(CLI::Validator(checkSize, ""));
  };
  auto percent = [cmd](const char* name, double& value, const char* what) {
    cmd->add_option(name, value, fmt::format("{} (default {:g})", what, value))
        ->type_name("PERCENT")
        ->check(CLI::Validator(checkPercent, ""));
  };
  bytes("--idle-floor-bytes", t.idle_floor.bytes, "idle floor rise allowed");
  percent("--idle-floor-percent", t.idle_floor.percent,
          "idle floor rise allowed, % of the baseline's");
  bytes("--peak-bytes", t.peak.bytes, "peak rise allowed");
  percent("--peak-percent", t.peak.percent, "peak rise allowed, % of the baseline's");
  bytes("--growth-bytes", t.growth.bytes, "floor growth per iteration rise allowed");
  percent("--growth-percent", t.growth.percent,
          "floor growth rise allowed, % of the baseline's slope");
  bytes("--site-bytes", t.site.bytes, "retained bytes per site rise allowed");
  percent("--site-percent", t.site.percent, "site retained rise allowed, % of the baseline's");
  bytes("--peak-site-bytes", t.site_peak.bytes, "bytes per site at the largest peak rise allowed");
  percent("--peak-site-percent", t.site_peak.percent,
          "site at the peak rise allowed, % of the baseline's");
  bytes("--holder-bytes", t.holder.bytes,
        "bytes per holder (a Python path of the last census) rise allowed");
  percent("--holder-percent", t.holder.percent, "holder rise allowed, % of the baseline's");
  cmd->add_flag("--fail-on-new-findings,!--allow-new-findings", t.fail_on_new_findings,
                "whether findings not in the baseline fail the gate (default: they do)");

  CLI::Option* markdown = cmd->add_option("--markdown", request->markdown_path,
                                          "append a Markdown summary (e.g. $GITHUB_STEP_SUMMARY)")
                              ->type_name("FILE")
                              ->check(nonEmptyPath());
  CLI::Option* annotations = cmd->add_flag("--annotations", request->annotations,
                                           "print GitHub workflow commands (::error ...)");
  CLI::Option* json = cmd->add_option("--json", request->json_path,
                                      "write the result as JSON (schema memfloor.gate/1)")
                          ->type_name("FILE")
                          ->check(nonEmptyPath());
  cmd->add_flag("--update-baseline", request->update_baseline,
                "check current and copy it to the baseline path; compares nothing")
      ->excludes(markdown)
      ->excludes(annotations)
      ->excludes(json);
  cmd->callback([request, &exit_code] { exit_code = runGate(*request); });
}

}  // namespace memfloor::cli
