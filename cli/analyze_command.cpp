// memfloor analyze: a trace in, report.json and the floor table out.
#include "cli/analyze_command.h"

#include <fmt/core.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "cli/command.h"
#include "cli/trace_input.h"
#include "reports/report_json.h"
#include "reports/report_table.h"
#include "trace/error.h"
#include "trace/reader.h"

namespace memfloor::cli {

reports::Report analyzeTrace(const std::string& trace_path, const reports::AnalysisOptions& options) {
  TraceInputFile input(trace_path);
  trace::TimeOrderReader reader(input.source());
  reports::Analysis analysis(options);
  trace::Record record;
  while (reader.next(record)) analysis.add(record);

  const trace::TraceEnd& end = reader.end();
  reports::TraceInput info;
  info.path = trace_path;
  info.major = reader.major();
  info.minor = reader.minor();
  info.ending = trace::describe(end);
  info.complete = end.ending == trace::Ending::kTrailer;
  return analysis.finish(info);
}

int analyzeTraceFile(const AnalyzeRequest& request) {
  reports::Report report = analyzeTrace(request.trace_path, request.options);
  if (!request.report_path.empty()) {
    std::ofstream out(request.report_path);
    out << reports::toJson(report).dump(2) << '\n';
    if (!out) throw Error(fmt::format("{}: cannot write the report", request.report_path));
  }
  if (request.print_table) fmt::print("{}", reports::formatTable(report));
  if (!report.input.complete) {
    fmt::print(stderr, "memfloor: warning: {}: {}\n", report.input.path, report.input.ending);
  }
  return kExitOk;
}

void addAnalyzeCommand(CLI::App& app, int& exit_code) {
  auto request = std::make_shared<AnalyzeRequest>();
  CLI::App* cmd = app.add_subcommand("analyze", "Replay a trace: idle floors per iteration, "
                                                "what holds them up, the floor trend");
  cmd->add_option("trace", request->trace_path, "trace file (.mftrace, or text form .txt)")
      ->required();
  cmd->add_option("-o,--output", request->report_path, "write the JSON report here");
  cmd->add_option("--iteration-pattern", request->options.iteration_pattern,
                  "regex (full match, case-insensitive) naming iteration markers")
      ->capture_default_str();
  cmd->add_option("--warmup", request->options.warmup_iterations,
                  "iterations excluded from the floor trend")
      ->capture_default_str();
  cmd->add_option("--top", request->options.top_sites, "retaining sites listed per idle window")
      ->capture_default_str();
  cmd->add_flag("!--no-table", request->print_table, "do not print the floor table");
  cmd->callback([request, &exit_code] { exit_code = analyzeTraceFile(*request); });
}

}  // namespace memfloor::cli
