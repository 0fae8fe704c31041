// memfloor export: traces in another tool's format: Chrome trace-event JSON for Perfetto UI and
// chrome://tracing (docs/exports.md), and PyTorch memory snapshots for its memory viewer
// (docs/torch-snapshots.md).
#include <fmt/core.h>

#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "analysis/analyze_traces.h"
#include "analysis/snapshot_export.h"
#include "cli/analyze_command.h"
#include "cli/command.h"
#include "cli/diagnostic.h"
#include "common/error.h"
#include "common/output_file.h"
#include "reports/perfetto_export.h"
#include "trace/torch_snapshot_writer.h"

namespace memfloor::cli {
namespace {

constexpr uint32_t kDefaultPoints = 100'000;  // live-bytes points: fine enough to zoom into
constexpr uint32_t kMaxPoints = 100'000'000;

constexpr std::string_view kPerfetto = "perfetto";
constexpr std::string_view kMemoryViz = "memory-viz";
constexpr std::string_view kMemoryViz113 = "memory-viz-1.13";

struct ExportRequest {
  std::vector<std::string> trace_paths;
  std::string output_path;  // "-": stdout
  std::string format;
  bool perfetto = false;
  analysis::AnalysisOptions options;
};

// One process's trace as a PyTorch memory snapshot: a pickle, written whole or not at all.
int exportSnapshot(const ExportRequest& request) {
  if (request.trace_paths.size() != 1) {
    throw Error(
        fmt::format("export --format {}: a snapshot is one process's; give one trace (got {})",
                    request.format, request.trace_paths.size()));
  }
  if (request.output_path == "-") {
    throw Error(
        fmt::format("export --format {}: a snapshot is a pickle; give -o a file", request.format));
  }
  const std::string& path = request.trace_paths.front();
  analysis::SnapshotExport result = analysis::exportTorchSnapshot(path, request.options);
  const analysis::TraceInput& input = result.report.input;
  if (!input.complete) printWarning(input.path + ": " + input.ending);
  if (result.left_out > 0) {
    printWarning(
        fmt::format("{}: {} allocations ({} bytes) of pinned, managed, static or pool "
                    "memory left out: the viewer draws device memory",
                    path, result.left_out, result.left_out_bytes));
  }
  if (result.blocks_outside_segments > 0) {
    printWarning(
        fmt::format("{}: {} blocks live at the end lie in no live segment: in the "
                    "device traces, not in the segments",
                    path, result.blocks_outside_segments));
  }
  common::OutputFile out(request.output_path, "memory snapshot", request.trace_paths);
  trace::writeTorchSnapshot(result.snapshot, out.stream(),
                            request.format == kMemoryViz ? trace::SnapshotForm::kDict
                                                         : trace::SnapshotForm::kSegmentList);
  out.commit();
  printWritten(request.output_path);
  return kExitOk;
}

int exportTraces(const ExportRequest& request) {
  if (request.format != kPerfetto) return exportSnapshot(request);
  std::vector<analysis::Report> reports;
  reports.reserve(request.trace_paths.size());
  for (const std::string& path : request.trace_paths) {
    reports.push_back(analysis::analyzeTrace(path, request.options));
    const analysis::TraceInput& input = reports.back().input;
    if (!input.complete) printWarning(input.path + ": " + input.ending);
  }
  if (request.output_path == "-") {
    reports::writeChromeTrace(reports, std::cout);
    std::cout << '\n';
    return kExitOk;
  }
  common::OutputFile out(request.output_path, "export", request.trace_paths);
  reports::writeChromeTrace(reports, out.stream());
  out.stream() << '\n';
  out.commit();
  printWritten(request.output_path);
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
      "Write traces for other tools: Chrome trace-event JSON (Perfetto UI, chrome://tracing), "
      "PyTorch memory snapshots (pytorch.org/memory_viz)");
  CLI::Option* format =
      cmd->add_option("--format", request->format,
                      "perfetto: Chrome trace-event JSON (live-bytes counters, iterations, idle "
                      "windows, markers); memory-viz: a PyTorch memory snapshot (pickle) with "
                      "memfloor's classes and holders; memory-viz-1.13: PyTorch 1.13's form (the "
                      "segments at the end only)")
          ->check(CLI::IsMember(
              {std::string(kPerfetto), std::string(kMemoryViz), std::string(kMemoryViz113)}));
  CLI::Option* perfetto =
      cmd->add_flag("--perfetto", request->perfetto, "the same as --format perfetto");
  format->excludes(perfetto);
  perfetto->excludes(format);
  cmd->add_option("traces", request->trace_paths,
                  "trace files (.mftrace, or text form .txt), one process each")
      ->type_name("FILE")
      ->required();
  cmd->add_option("-o,--output", request->output_path, "write the export here (- for stdout)")
      ->type_name("FILE")
      ->required();
  cmd->add_option("--points", request->options.timeline_points,
                  "most live-bytes points per device and memory kind (finer: larger file)")
      ->type_name("N")
      ->capture_default_str()
      ->check(CLI::Range(2u, kMaxPoints));
  cmd->add_option("--iteration-pattern", request->options.iteration_pattern,
                  "regex (full match, case-insensitive) naming iteration markers (default: the "
                  "one the trace records, that memfloor run was given, else this)")
      ->type_name("REGEX")
      ->capture_default_str()
      ->each([request](const std::string&) { request->options.recorded_pattern = false; });
  cmd->add_option("--iteration-domain", request->options.iteration_domain,
                  "the NVTX domain of the iteration markers (default: the default domain)")
      ->type_name("NAME");
  cmd->add_option("--warmup", request->options.warmup_iterations,
                  "iterations whose allocations count as persistent")
      ->type_name("N")
      ->capture_default_str();
  addSitePatternOptions(*cmd, request->options.site_patterns);
  cmd->callback([request, &exit_code] {
    if (request->perfetto) request->format = std::string(kPerfetto);
    if (request->format.empty()) throw CLI::RequiredError("--format");
    exit_code = exportTraces(*request);
  });
}

}  // namespace memfloor::cli
