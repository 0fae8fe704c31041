// libFuzzer target: a PyTorch memory snapshot's pickle analysed as `memfloor analyze x.pickle`
// analyses it: the restricted pickle reader, the snapshot's reader, its encoding as a trace (the
// allocator's block sizes, the ring's reconciliation, the steps) and the analysis, its report
// written as JSON, and the snapshot written back in both of PyTorch's forms (the export's writer).
// Each input must give a report or throw memfloor::Error.
#include <cstdint>
#include <optional>
#include <span>
#include <sstream>
#include <utility>
#include <vector>

#include "analysis/analyze_traces.h"
#include "analysis/merged_report.h"
#include "common/error.h"
#include "common/pickle.h"
#include "report/report_json.h"
#include "trace/source.h"
#include "trace/torch_snapshot.h"
#include "trace/torch_snapshot_reader.h"
#include "trace/torch_snapshot_writer.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace memfloor;
  try {
    const common::PickleDocument document =
        common::readPickle(std::span<const uint8_t>(data, size), "fuzz.pickle");
    const trace::TorchSnapshot snapshot = trace::readTorchSnapshot(document.root(), "fuzz.pickle");
    for (const trace::SnapshotForm form :
         {trace::SnapshotForm::kDict, trace::SnapshotForm::kSegmentList}) {
      std::ostringstream written;
      trace::writeTorchSnapshot(snapshot, written, form);
    }
    const std::vector<uint8_t> bytes = trace::encodeTorchSnapshot(snapshot, "fuzz.pickle");
    const trace::MemorySource source(bytes, "fuzz.pickle");
    std::vector<analysis::Report> runs;
    runs.push_back(analysis::analyzeTrace(source, {}));
    report::toJsonText(analysis::mergeRuns(std::move(runs), std::nullopt));
  } catch (const Error&) {
    // not a pickle of plain data, or not a snapshot: a clear error is the expected answer
  }
  return 0;
}
