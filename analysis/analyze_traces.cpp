// Traces into reports: the read-and-replay loop, the workers that share the traces out, and the
// merge of the runs.
#include "analysis/analyze_traces.h"

#include <fmt/core.h>

#include <algorithm>
#include <atomic>
#include <exception>
#include <filesystem>
#include <optional>
#include <span>
#include <thread>

#include "analysis/findings.h"
#include "common/error.h"
#include "common/pickle.h"
#include "symbols/llvm_symbolizer.h"
#include "trace/reader.h"
#include "trace/source.h"
#include "trace/trace_file.h"

namespace memfloor::analysis {

TraceInput replayTrace(const trace::Source& source, Analysis& analysis) {
  trace::TimeOrderReader reader(source);
  trace::TimeOrderReader::Batch batch;
  while (reader.nextBatch(batch)) {
    try {
      for (const trace::Record& record : batch.records) analysis.add(record);
      analysis.add(batch.events);
    } catch (const Error& e) {  // a limit of the analysis (timeline.h): the trace is named here
      throw Error(fmt::format("{}: {}", source.name(), e.what()));
    }
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

namespace {

// A binary trace or a PyTorch memory snapshot's pickle, by its first bytes.
bool looksLikeTraceOrSnapshot(const std::string& path) {
  const trace::FileSource source(path);
  uint8_t head[2] = {};
  const size_t got = source.readAt(0, head, sizeof head);
  return common::looksLikePickle(std::span<const uint8_t>(head, got)) ||
         trace::looksLikeBinaryTrace(source);
}

// The regular files of `dir` that are traces or snapshots by their first bytes, whatever their
// names (PyTorch's per-rank snapshots: `snapshot_rank_0`, `rank1.pickle`), sorted.
std::vector<std::string> tracesAndSnapshotsIn(const std::string& dir) {
  namespace fs = std::filesystem;
  std::vector<std::string> found;
  std::error_code ec;
  for (const fs::directory_entry& e : fs::directory_iterator(dir, ec)) {
    std::error_code type_ec;  // the entry's own: a member gone since is not the directory's
    if (e.is_regular_file(type_ec) && looksLikeTraceOrSnapshot(e.path())) {
      found.push_back(e.path());
    }
  }
  if (ec) throw Error(fmt::format("{}: cannot list the directory: {}", dir, ec.message()));
  std::sort(found.begin(), found.end());
  return found;
}

}  // namespace

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
    std::sort(found.begin(), found.end());
    if (found.empty()) found = tracesAndSnapshotsIn(path);
    if (found.empty()) {
      throw Error(
          fmt::format("{}: no trace (.mftrace) and no PyTorch memory snapshot (a pickle "
                      "of torch.cuda.memory._dump_snapshot) in this directory",
                      path));
    }
    out.insert(out.end(), found.begin(), found.end());
  }
  return out;
}

namespace {

// The workers for `traces` traces: `jobs`, or one per core for 0; at least one, never more than
// traces.
size_t workerCount(unsigned jobs, size_t traces) {
  const size_t wanted = jobs != 0 ? jobs : std::thread::hardware_concurrency();
  return std::clamp<size_t>(wanted, 1, std::max<size_t>(traces, 1));
}

}  // namespace

MergedReport analyzeTraces(const TraceSet& set) {
  std::optional<FindingsFile> findings;
  AnalysisOptions options = set.options;
  if (!set.findings_path.empty()) {
    findings = loadFindings(set.findings_path, set.source_root);
    for (const LinkedFinding& f : findings->items) options.links.push_back(f.link);
  }
  const std::vector<std::string> paths = expandTracePaths(set.trace_paths);
  // Each slot is written by the one worker that took its index.
  std::vector<Report> runs(paths.size());
  std::vector<std::exception_ptr> errors(paths.size());
  std::atomic<size_t> next{0};
  std::atomic<size_t> done{0};
  std::atomic<bool> failed{false};
  // Everything an Analysis holds is its own (the options are copied in, the iteration pattern
  // compiled per Analysis); only the resolver would be shared. LlvmSymbolizer is not thread-safe,
  // and what it lists accumulates over its calls: one per trace keeps the threads apart and makes
  // a run's `symbolized` the modules of that trace's frames alone, whatever ran before.
  auto work = [&] {
    AnalysisOptions own = options;
    while (!failed.load()) {
      const size_t i = next.fetch_add(1);
      if (i >= paths.size()) return;
      try {
        symbols::LlvmSymbolizer symbolizer({"", set.debug_dirs});
        own.resolver = set.symbolize ? &symbolizer : nullptr;
        runs[i] = analyzeTrace(paths[i], own);
        own.resolver = nullptr;
        if (set.symbolize) runs[i].symbolized = symbolizer.modules();
      } catch (...) {
        errors[i] = std::current_exception();
        failed = true;
        return;
      }
      if (set.progress) set.progress(done.fetch_add(1) + 1, paths.size());
    }
  };
  {
    std::vector<std::jthread> pool;  // joined at the end of the block, or when a start fails
    for (size_t w = 1; w < workerCount(set.jobs, paths.size()); ++w) pool.emplace_back(work);
    work();  // this thread is a worker too
  }
  // Indexes are taken in order and a taken trace is always finished, so every trace before a
  // failed one was analysed: the first error in order is the one a serial loop would have thrown.
  for (const std::exception_ptr& error : errors) {
    if (error) std::rethrow_exception(error);
  }
  return mergeRuns(std::move(runs), std::move(findings));
}

}  // namespace memfloor::analysis
