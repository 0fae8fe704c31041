// memfloor analyze: a trace in, report.json and the floor table out.
#include "cli/analyze_command.h"

#include <fmt/core.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>

#include "cli/command.h"
#include "cli/trace_input.h"
#include "symbols/llvm_symbolizer.h"
#include "reports/report_json.h"
#include "reports/report_table.h"
#include "common/error.h"
#include "trace/reader.h"

namespace memfloor::cli {

analysis::Report analyzeTrace(const std::string& trace_path,
                             const analysis::AnalysisOptions& options) {
  return analysis::analyzeReplays(options, [&trace_path](analysis::Analysis& analysis) {
    TraceInputFile input(trace_path);
    trace::TimeOrderReader reader(input.source());
    trace::TimeOrderReader::Batch batch;
    while (reader.nextBatch(batch)) {
      for (const trace::Record& record : batch.records) analysis.add(record);
      analysis.add(batch.events);
    }
    const trace::TraceEnd& end = reader.end();
    analysis::TraceInput info;
    info.path = trace_path;
    info.major = reader.major();
    info.minor = reader.minor();
    info.ending = trace::describe(end);
    info.complete = end.ending == trace::Ending::kTrailer;
    return info;
  });
}

std::vector<std::string> expandTracePaths(const std::vector<std::string>& paths) {
  namespace fs = std::filesystem;
  std::vector<std::string> out;
  for (const std::string& path : paths) {
    std::error_code ec;
    if (!fs::is_directory(path, ec)) {
      out.push_back(path);  // a missing file is reported by the reader, naming it
      continue;
    }
    std::vector<std::string> found;
    for (const fs::directory_entry& e : fs::directory_iterator(path, ec)) {
      if (e.path().extension() == ".mftrace" && e.is_regular_file(ec)) found.push_back(e.path());
    }
    if (ec) throw Error(fmt::format("{}: cannot list the directory: {}", path, ec.message()));
    if (found.empty()) throw Error(fmt::format("{}: no .mftrace file in this directory", path));
    std::sort(found.begin(), found.end());
    out.insert(out.end(), found.begin(), found.end());
  }
  return out;
}

analysis::MergedReport analyzeTraces(const AnalyzeRequest& request) {
  std::optional<analysis::FindingsFile> findings;
  analysis::AnalysisOptions options = request.options;
  if (!request.findings_path.empty()) {
    findings = analysis::loadFindings(request.findings_path, request.source_root);
    for (const analysis::Finding& f : findings->items) options.links.push_back(f.link);
  }
  symbols::LlvmSymbolizer symbolizer({"", request.debug_dirs});
  if (request.symbolize) options.resolver = &symbolizer;
  std::vector<analysis::Report> runs;
  for (const std::string& path : expandTracePaths(request.trace_paths)) {
    runs.push_back(analyzeTrace(path, options));
    if (request.symbolize) runs.back().symbolized = symbolizer.modules();
  }
  return analysis::mergeRuns(std::move(runs), std::move(findings));
}

int analyzeTraceFile(const AnalyzeRequest& request) {
  analysis::MergedReport report = analyzeTraces(request);
  if (!request.report_path.empty()) {
    std::ofstream out(request.report_path);
    reports::writeJson(out, report);
    if (!out) throw Error(fmt::format("{}: cannot write the report", request.report_path));
  }
  if (request.print_table) fmt::print("{}", reports::formatTable(report));
  for (const analysis::Report& run : report.runs) {
    if (!run.input.complete) {
      fmt::print(stderr, "memfloor: warning: {}: {}\n", run.input.path, run.input.ending);
    }
  }
  return kExitOk;
}

void addAnalyzeCommand(CLI::App& app, int& exit_code) {
  auto request = std::make_shared<AnalyzeRequest>();
  CLI::App* cmd = app.add_subcommand("analyze",
                                     "Replay traces: idle floors per iteration, "
                                     "what holds them up, the floor trend");
  cmd->add_option("traces", request->trace_paths,
                  "trace files (.mftrace, or text form .txt), or directories of them (one per "
                  "rank or process)")
      ->required();
  cmd->add_option("-o,--output", request->report_path, "write the JSON report here");
  cmd->add_option("--findings", request->findings_path,
                  "memfloor-check findings (--format json) to link to the retained bytes");
  cmd->add_option("--source-root", request->source_root,
                  "directory the findings' relative file names are in")
      ->capture_default_str();
  cmd->add_option("--debug-dir", request->debug_dirs,
                  "directory with the traced binaries or their debug files (by build id)");
  cmd->add_flag("!--no-symbolize", request->symbolize,
                "do not resolve native frames with llvm-symbolizer");
  cmd->add_option("--iteration-pattern", request->options.iteration_pattern,
                  "regex (full match, case-insensitive) naming iteration markers")
      ->capture_default_str();
  cmd->add_flag("!--no-detect-iterations", request->options.detect_iterations,
                "without iteration markers, report the trace as a whole instead of cutting "
                "iterations at an allocation that recurs once per iteration");
  cmd->add_option("--warmup", request->options.warmup_iterations,
                  "iterations excluded from the floor trend")
      ->capture_default_str();
  cmd->add_option("--top", request->options.top_sites, "retaining sites listed per idle window")
      ->capture_default_str();
  cmd->add_flag("!--no-table", request->print_table, "do not print the floor table");
  cmd->callback([request, &exit_code] { exit_code = analyzeTraceFile(*request); });
}

}  // namespace memfloor::cli
