// memfloor analyze: a trace in, report.json and the floor table out.
#include "cli/analyze_command.h"

#include <fmt/core.h>

#include <memory>

#include "cli/command.h"
#include "cli/diagnostic.h"
#include "cli/trace_inputs.h"
#include "common/error.h"
#include "common/output_file.h"
#include "common/progress.h"
#include "report/report_json.h"
#include "reports/report_table.h"

namespace memfloor::cli {

namespace {

// What the report must not be written over: the files it was made from (each run's trace or
// snapshot, those of a directory included) and the findings.
std::vector<std::string> inputsOf(const report::MergedReport& report,
                                  const analysis::TraceSet& traces) {
  std::vector<std::string> inputs;
  for (const analysis::Report& run : report.runs) inputs.push_back(run.input.path);
  if (!traces.findings_path.empty()) inputs.push_back(traces.findings_path);
  return inputs;
}

// The analysis of `traces`, with its progress drawn on stderr, cleared before the table and the
// warnings are printed (and when the analysis throws).
report::MergedReport analyzeWithProgress(analysis::TraceSet traces) {
  common::Progress progress("analyze", "traces");
  traces.progress = [&progress](size_t done, size_t total) { progress.update(done, total); };
  try {
    return analysis::analyzeTraces(traces);
  } catch (const Error& e) {
    rethrowNamingDocument(e, traces.trace_paths);  // a report named where a trace belongs
  }
}

}  // namespace

int analyzeTraceFile(const AnalyzeRequest& request) {
  const report::MergedReport report = analyzeWithProgress(request.traces);
  if (request.strict) {
    for (const analysis::Report& run : report.runs) {
      if (!run.input.complete) {
        throw Error(fmt::format("{}: {} (--strict)", run.input.path, run.input.ending));
      }
    }
  }
  if (!request.report_path.empty()) {
    common::OutputFile out(request.report_path, "report", inputsOf(report, request.traces));
    report::writeJson(out.stream(), report);
    out.commit();
  }
  if (request.print_table) fmt::print("{}", reports::formatTable(report));
  if (!request.report_path.empty()) printWritten(request.report_path);
  for (const analysis::Report& run : report.runs) {
    if (!run.input.complete) {
      printWarning(run.input.path + ": " + run.input.ending);
    }
  }
  if (report.findings) {
    // The file names come from the findings file: escaped, as every string from an input is.
    for (const std::string& warning : report.findings->warnings) {
      printWarning(warning);
    }
  }
  return kExitOk;
}

void addSitePatternOptions(CLI::App& cmd, symbols::SitePatterns& patterns, std::string_view when) {
  const CLI::Validator not_empty(
      [](const std::string& pattern) {
        return pattern.empty() ? std::string("an empty pattern matches no frame") : std::string();
      },
      "");
  cmd.add_option("--site-include", patterns.include,
                 fmt::format("a frame whose file or module path matches this glob is the user's "
                             "code and may name a site, even where an exclude pattern matches "
                             "(repeatable{})",
                             when))
      ->type_name("GLOB")
      ->check(not_empty);
  cmd.add_option("--site-exclude", patterns.exclude,
                 fmt::format("a frame whose file or module path matches this glob names no site, "
                             "as the libraries of PyTorch, CUDA, Python and the system do not "
                             "(repeatable{})",
                             when))
      ->type_name("GLOB")
      ->check(not_empty);
}

void addAnalyzeCommand(CLI::App& app, int& exit_code) {
  auto request = std::make_shared<AnalyzeRequest>();
  CLI::App* cmd = app.add_subcommand("analyze",
                                     "Replay traces: idle floors per iteration, "
                                     "what holds them up, the floor trend");
  cmd->add_option("traces", request->traces.trace_paths,
                  "trace files (.mftrace, or text form .txt), PyTorch memory snapshots "
                  "(_dump_snapshot's pickle, or its JSON), or directories of traces or of "
                  "snapshots (one per rank or process)")
      ->type_name("FILE|DIR")
      ->required();
  cmd->add_option("-o,--output", request->report_path, "write the JSON report here")
      ->type_name("FILE")
      ->check(nonEmptyPath());
  cmd->add_option("--findings", request->traces.findings_path,
                  "memfloor-check findings (--format json) to link to the retained bytes")
      ->type_name("FILE");
  cmd->add_option("--source-root", request->traces.source_root,
                  "directory the findings' relative file names are in; no source outside it is "
                  "read into the report")
      ->type_name("DIR")
      ->capture_default_str();
  cmd->add_option("--debug-dir", request->traces.debug_dirs,
                  "directory with the traced binaries or their debug files (by build id)")
      ->type_name("DIR");
  cmd->add_flag("!--no-symbolize", request->traces.symbolize,
                "do not resolve native frames with llvm-symbolizer");
  cmd->add_option("--iteration-pattern", request->traces.options.iteration_pattern,
                  "regex (full match, case-insensitive) naming iteration markers (default: the "
                  "one the trace records, that memfloor run was given, else this)")
      ->type_name("REGEX")
      ->capture_default_str()
      ->each([request](const std::string&) { request->traces.options.recorded_pattern = false; });
  cmd->add_option("--iteration-domain", request->traces.options.iteration_domain,
                  "the NVTX domain of the iteration markers (default: the default domain); "
                  "other domains' ranges never open or close an iteration")
      ->type_name("NAME");
  cmd->add_flag("!--no-detect-iterations", request->traces.options.detect_iterations,
                "without iteration markers, report the trace as a whole instead of cutting "
                "iterations at an allocation that recurs once per iteration");
  cmd->add_option("--warmup", request->traces.options.warmup_iterations,
                  "iterations excluded from the floor trend")
      ->type_name("N")
      ->capture_default_str();
  cmd->add_option("--top", request->traces.options.top_sites,
                  "retaining sites listed per idle window")
      ->type_name("N")
      ->capture_default_str();
  addSitePatternOptions(*cmd, request->traces.options.site_patterns);
  cmd->add_option("-j,--jobs", request->traces.jobs,
                  "traces analysed at once, each by its own thread (0: one per core); the "
                  "report is the same for any number")
      ->type_name("N")
      ->capture_default_str();
  cmd->add_flag("!--no-table", request->print_table, "do not print the floor table");
  cmd->add_flag("--strict", request->strict,
                "an incomplete trace (cut short, a corrupt chunk, a trailer that counts other "
                "records than were read) is an error, exit 2, instead of a warning");
  cmd->callback([request, &exit_code] { exit_code = analyzeTraceFile(*request); });
}

}  // namespace memfloor::cli
