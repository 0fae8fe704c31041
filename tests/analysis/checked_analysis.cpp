// The tests' reports: through analysis/analyze_traces.h, the invariants checked on each.
#include "checked_analysis.h"

#include <catch2/catch.hpp>

#include "invariants.h"
#include "report/report_json.h"
#include "tests/trace/trace_test_util.h"
#include "trace/source.h"

namespace memfloor::analysis::test {

Report analyzeBytes(std::span<const uint8_t> bytes, const std::string& name,
                    const AnalysisOptions& options) {
  const trace::MemorySource source(bytes, name);
  Report report = analyzeTrace(source, options);
  checkInvariants(report);
  return report;
}

Report analyzeFile(const std::string& path, const AnalysisOptions& options) {
  Report report = analyzeTrace(path, options);
  checkInvariants(report);
  return report;
}

MergedReport analyzeSet(const TraceSet& set) {
  MergedReport report = analysis::analyzeTraces(set);
  checkInvariants(report);
  return report;
}

MergedReport merge(std::vector<Report> runs, std::optional<FindingsFile> findings) {
  MergedReport report = mergeRuns(std::move(runs), std::move(findings));
  checkInvariants(report);
  return report;
}

std::vector<uint8_t> encodeTrace(const std::vector<trace::Record>& records, bool complete) {
  const bool has_trailer =
      !records.empty() && std::holds_alternative<trace::Trailer>(records.back());
  REQUIRE((complete || !has_trailer));
  return trace::testing::writeBinary(records, trace::Writer::kDefaultChunkBytes,
                                     complete && !has_trailer);
}

Report analyze(const std::vector<trace::Record>& records, const AnalysisOptions& options) {
  const std::vector<uint8_t> bytes = encodeTrace(records);
  Report report = analyzeBytes(bytes, "built.mftrace", options);
  bool in_order = true;
  uint64_t last = 0;
  for (const trace::Record& r : records) {
    if (!trace::isTimed(r)) continue;
    in_order = in_order && trace::timestampOf(r) >= last;
    last = trace::timestampOf(r);
  }
  if (in_order) {
    // The records as the file holds them, the trailer included, one by one.
    const std::vector<trace::Record> in_file =
        trace::testing::readAll<trace::FileOrderReader>(bytes);
    CHECK(report::toJson(analyzeOneByOne(in_file, options, report.input)) ==
          report::toJson(report));
  }
  return report;
}

Report analyze(const TraceBuilder& builder, const AnalysisOptions& options) {
  return analyze(builder.records(), options);
}

Report analyzeOneByOne(const std::vector<trace::Record>& records, const AnalysisOptions& options,
                       const TraceInput& input) {
  Report report = analyzeReplays(options, [&](Analysis& analysis) {
    for (const trace::Record& r : records) analysis.add(r);
    return input;
  });
  checkInvariants(report);
  return report;
}

}  // namespace memfloor::analysis::test
