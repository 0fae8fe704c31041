// The reports the tests build: each made the one way a trace becomes a report
// (analysis/analyze_traces.h), each checked against the invariants (invariants.h).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "analysis/analyze_traces.h"
#include "trace/records.h"
#include "trace_builder.h"

namespace memfloor::analysis::test {

// A binary trace in memory, analysed as `memfloor analyze` analyses a file; `name` is its path.
Report analyzeBytes(std::span<const uint8_t> bytes, const std::string& name,
                    const AnalysisOptions& options = {});

// A trace file, binary or text form.
Report analyzeFile(const std::string& path, const AnalysisOptions& options = {});

// The traces of a set, analysed and merged.
MergedReport analyzeSet(const TraceSet& set);

// Runs merged as analyzeTraces merges them.
MergedReport merge(std::vector<Report> runs, std::optional<FindingsFile> findings = std::nullopt);

// Records built in code as one binary trace: ended by a trailer (the records' own when they end
// with one), or, when not complete, cut short without one.
std::vector<uint8_t> encodeTrace(const std::vector<trace::Record>& records, bool complete = true);

// Records built in code, encoded (encodeTrace) and analysed as the trace "built.mftrace". When they
// are in timestamp order, the same records added one by one (analyzeOneByOne) must give the same
// report as the reader's blocks of events.
Report analyze(const std::vector<trace::Record>& records, const AnalysisOptions& options = {});
Report analyze(const TraceBuilder& builder, const AnalysisOptions& options = {});

// The records added to an Analysis one by one in the order given (Analysis::add of a Record), for
// each of the replays: what only a caller that bypasses the time-order reader gives, such as
// records out of timestamp order. `input` stands for what a reader would have said of the trace.
Report analyzeOneByOne(const std::vector<trace::Record>& records, const AnalysisOptions& options,
                       const TraceInput& input);

}  // namespace memfloor::analysis::test
