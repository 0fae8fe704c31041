// libFuzzer target: a text trace analysed as `memfloor analyze run.txt` analyses it, its report
// written as JSON and as the table. The marker names are fuzzed, so the iteration pattern is
// matched against them on every input: the input's length picks the default pattern or one of the
// user patterns that once overflowed the stack (`iteration.*`, `A*`) or hung (`(a+)+b`) in a
// backtracking engine (the length, not a byte of it: the whole input is the trace, so the text
// fixtures seed it as they are). Each input must give a report or throw memfloor::Error.
#include <array>
#include <cstdint>
#include <optional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "analysis/analyze_traces.h"
#include "analysis/merged_report.h"
#include "common/error.h"
#include "report/report_json.h"
#include "reports/report_table.h"
#include "trace/source.h"
#include "trace/trace_file.h"

namespace {

constexpr std::array<const char*, 4> kPatterns = {nullptr, "iteration.*", "A*", "(a+)+b"};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace memfloor;
  std::istringstream in(std::string(reinterpret_cast<const char*>(data), size));
  try {
    const std::vector<uint8_t> bytes = trace::encodeTextTrace(in, "fuzz.txt");
    const trace::MemorySource source(bytes, "fuzz.txt");
    analysis::AnalysisOptions options;
    if (const char* pattern = kPatterns[size % kPatterns.size()]) {
      options.iteration_pattern = pattern;
    }
    std::vector<analysis::Report> runs;
    runs.push_back(analysis::analyzeTrace(source, options));
    const report::MergedReport report = analysis::mergeRuns(std::move(runs), std::nullopt);
    report::toJsonText(report);
    reports::formatTable(report);
  } catch (const Error&) {
    // a malformed line or a trace the analysis refuses: a clear error is the expected answer
  }
  return 0;
}
