// Traces into reports, the one way: trace files opened (binary or text form), read in timestamp
// order into an Analysis (again for detected iterations), the runs merged. `memfloor analyze`,
// `memfloor export` and the tests all feed traces through here.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "analysis/analysis.h"
#include "analysis/merged_report.h"
#include "trace/source.h"

namespace memfloor::analysis {

// One read of a trace into `analysis`: every record in timestamp order, the untimed ones one by
// one and the timed ones in blocks of events (trace::TimeOrderReader::nextBatch, the fast way in).
// Returns what the reader knows of the trace, for Analysis::finish. Throws memfloor::Error on a
// trace the reader cannot start (not a trace, unknown major version).
TraceInput replayTrace(const trace::Source& source, Analysis& analysis);

// The whole analysis of one trace: analyzeReplays over replayTrace, so a trace without iteration
// markers may be read three times (docs/design.md, "Detected iterations").
Report analyzeTrace(const trace::Source& source, const AnalysisOptions& options);

// The same for a trace file, binary or text form (trace::TraceFile). Throws memfloor::Error naming
// the path on unusable input.
Report analyzeTrace(const std::string& path, const AnalysisOptions& options);

// The trace files `paths` name: files as given, directories expanded to their *.mftrace files
// (sorted), or, in a directory without any, to its regular files that are traces or PyTorch
// memory snapshots by their first bytes (a binary trace's magic, a pickle's protocol), whatever
// their names, sorted: one snapshot per rank. Throws memfloor::Error for a directory with neither;
// a missing file is left to the reader, which names it.
std::vector<std::string> expandTracePaths(const std::vector<std::string>& paths);

// Told each time a trace's analysis ends: how many have ended, of how many. Called from the
// workers, at once from several: it must be thread-safe and not throw (common/progress.h draws
// it).
using TraceProgress = std::function<void(size_t done, size_t total)>;

// The traces of one report and what they are analysed with.
struct TraceSet {
  std::vector<std::string> trace_paths;  // files, or directories of *.mftrace (memfloor run -o)
  std::string findings_path;             // empty: no findings merged
  std::string source_root = ".";         // where the findings' relative file names are
  std::vector<std::string> debug_dirs;   // searched for the modules' debug information
  bool symbolize = true;                 // resolve native frames with llvm-symbolizer
  AnalysisOptions options;
  unsigned jobs = 0;       // traces analysed at once; 0: one per core, never more than traces
  TraceProgress progress;  // empty: nothing told
};

// Every trace of the set analysed (symbolized, linked to the findings) and merged. The traces are
// shared among `jobs` workers, each taking the next one not taken; the report is the same whatever
// their number and order: each run is stored at its trace's index, and symbolized by its own
// symbolizer, so that Report::symbolized names the modules of that trace's frames only. Throws the
// error of the first failing trace in the expanded order (the workers take no new trace once one
// failed; those before it are all taken by then and still finish).
MergedReport analyzeTraces(const TraceSet& set);

}  // namespace memfloor::analysis
