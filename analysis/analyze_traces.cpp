// Traces into reports: the read-and-replay loop and the merge of the runs.
#include "analysis/analyze_traces.h"

#include <fmt/core.h>

#include <algorithm>
#include <filesystem>
#include <optional>

#include "analysis/findings.h"
#include "common/error.h"
#include "symbols/llvm_symbolizer.h"
#include "trace/reader.h"
#include "trace/trace_file.h"

namespace memfloor::analysis {

TraceInput replayTrace(const trace::Source& source, Analysis& analysis) {
  trace::TimeOrderReader reader(source);
  trace::TimeOrderReader::Batch batch;
  while (reader.nextBatch(batch)) {
    for (const trace::Record& record : batch.records) analysis.add(record);
    analysis.add(batch.events);
  }
  const trace::TraceEnd& end = reader.end();
  TraceInput input;
  input.path = source.name();
  input.major = reader.major();
  input.minor = reader.minor();
  input.ending = trace::describe(end);
  input.complete = end.ending == trace::Ending::kTrailer;
  return input;
}

Report analyzeTrace(const trace::Source& source, const AnalysisOptions& options) {
  return analyzeReplays(options,
                        [&source](Analysis& analysis) { return replayTrace(source, analysis); });
}

Report analyzeTrace(const std::string& path, const AnalysisOptions& options) {
  const trace::TraceFile file(path);
  return analyzeTrace(file.source(), options);
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
      if (e.path().extension() != ".mftrace") continue;
      std::error_code type_ec;  // the entry's own: a failure here is not the directory's
      if (e.is_regular_file(type_ec)) {
        found.push_back(e.path());
      } else if (e.is_symlink(type_ec) && !e.exists(type_ec)) {
        std::error_code link_ec;
        throw Error(fmt::format("{}: a dangling symbolic link (to '{}', which does not exist)",
                                e.path().string(), fs::read_symlink(e.path(), link_ec).string()));
      }
    }
    if (ec) throw Error(fmt::format("{}: cannot list the directory: {}", path, ec.message()));
    if (found.empty()) throw Error(fmt::format("{}: no .mftrace file in this directory", path));
    std::sort(found.begin(), found.end());
    out.insert(out.end(), found.begin(), found.end());
  }
  return out;
}

MergedReport analyzeTraces(const TraceSet& set) {
  std::optional<FindingsFile> findings;
  AnalysisOptions options = set.options;
  if (!set.findings_path.empty()) {
    findings = loadFindings(set.findings_path, set.source_root);
    for (const Finding& f : findings->items) options.links.push_back(f.link);
  }
  symbols::LlvmSymbolizer symbolizer({"", set.debug_dirs});
  if (set.symbolize) options.resolver = &symbolizer;
  std::vector<Report> runs;
  for (const std::string& path : expandTracePaths(set.trace_paths)) {
    runs.push_back(analyzeTrace(path, options));
    if (set.symbolize) runs.back().symbolized = symbolizer.modules();
  }
  return mergeRuns(std::move(runs), std::move(findings));
}

}  // namespace memfloor::analysis
