// memfloor export: traces in another tool's format; today Chrome trace-event JSON for Perfetto UI
// and chrome://tracing (docs/exports.md).
#include <fmt/core.h>

#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "analysis/analyze_traces.h"
#include "cli/analyze_command.h"
#include "cli/command.h"
#include "cli/diagnostic.h"
#include "common/error.h"
#include "common/output_file.h"
#include "reports/perfetto_export.h"

namespace memfloor::cli {
namespace {

constexpr uint32_t kDefaultPoints = 100'000;  // live-bytes points: fine enough to zoom into
constexpr uint32_t kMaxPoints = 100'000'000;

struct ExportRequest {
  std::vector<std::string> trace_paths;
  std::string output_path;  // "-": stdout
  bool perfetto = false;
  analysis::AnalysisOptions options;
};

int exportTraces(const ExportRequest& request) {
  std::vector<analysis::Report> reports;
  reports.reserve(request.trace_paths.size());
  for (const std::string& path : request.trace_paths) {
    reports.push_back(analysis::analyzeTrace(path, request.options));
    const analysis::TraceInput& input = reports.back().input;
    if (!input.complete) printWarning(input.path + ": " + input.ending);
  }
  const std::string text = reports::dumpChromeTrace(reports::toChromeTrace(reports));
  if (request.output_path == "-") {
    std::cout << text << '\n';
    return kExitOk;
  }
  common::OutputFile out(request.output_path, "export", request.trace_paths);
  out.write(text);
  out.write("\n");
  out.commit();
  return kExitOk;
}

}  // namespace

void addExportCommand(CLI::App& app, int& exit_code) {
  auto request = std::make_shared<ExportRequest>();
  request->options.keep_ranges = true;
  request->options.compact_iterations = false;  // every iteration on the timeline
  request->options.timeline_points = kDefaultPoints;
  CLI::App* cmd = app.add_subcommand(
      "export",
      "Write traces for other tools: --perfetto, Chrome trace-event JSON (Perfetto UI, "
      "chrome://tracing)");
  cmd->add_flag("--perfetto", request->perfetto,
                "Chrome trace-event JSON: live-bytes counters, iterations, idle windows, markers")
      ->required();
  cmd->add_option("traces", request->trace_paths,
                  "trace files (.mftrace, or text form .txt), one process each")
      ->required();
  cmd->add_option("-o,--output", request->output_path, "write the export here (- for stdout)")
      ->required();
  cmd->add_option("--points", request->options.timeline_points,
                  "most live-bytes points per device and memory kind (finer: larger file)")
      ->capture_default_str()
      ->check(CLI::Range(2u, kMaxPoints));
  cmd->add_option("--iteration-pattern", request->options.iteration_pattern,
                  "regex (full match, case-insensitive) naming iteration markers")
      ->capture_default_str();
  cmd->add_option("--iteration-domain", request->options.iteration_domain,
                  "the NVTX domain of the iteration markers (default: the default domain)");
  cmd->add_option("--warmup", request->options.warmup_iterations,
                  "iterations whose allocations count as persistent")
      ->capture_default_str();
  addSitePatternOptions(*cmd, request->options.site_patterns);
  cmd->callback([request, &exit_code] { exit_code = exportTraces(*request); });
}

}  // namespace memfloor::cli
