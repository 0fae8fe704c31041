// The mirror of report_json.h: report.json read back into the structures it was written from.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "report/findings.h"
#include "report/merged_report.h"
#include "report/model.h"

namespace memfloor::report {

class ReportReader;

// The steady window of one memory (runs[].steady_idle_floor[]) and the sites that the iteration
// it names lists in its top_sites (those of every memory of that iteration; none when the
// iteration is 0, no window).
struct SteadyWindow {
  SteadyFloor floor;
  std::vector<RetainedSite> top_sites;
};

// The iteration with the largest peak of one memory (runs[].iterations[].memory[].peak; the first
// of equal ones), and what is live at that peak (none in reports written before peak
// compositions).
struct LargestPeak {
  MemoryKey key;
  uint32_t iteration = 0;  // 1-based
  uint64_t peak = 0;
  std::optional<PeakSnapshot> composition;
};

// One run of a report, read part by part. Each part is read whole and typed; a field that is
// missing or of the wrong type is a memfloor::Error naming the file and the field
// ("r.json: runs[0].memory[1].peak: expected an unsigned integer"). A part not asked for is not
// looked at, so a reader of some parts (the gate) accepts reports whose other parts it never uses.
class RunReader {
 public:
  std::string label() const;
  std::vector<MemorySummary> memory() const;
  std::vector<SteadyWindow> steadyWindows() const;
  // One per memory of the iterations, in the order they first list them; none without iterations.
  std::vector<LargestPeak> largestPeaks() const;
  std::vector<Trend> trends() const;  // trend.per_memory
  // Per device, its last census in an idle window (iterations[].held_by), by device; none in a
  // report without censuses.
  std::vector<HeldBy> lastCensuses() const;
  // The whole run. Report::explained is not a part of the run in report.json but of the findings
  // (findings.items[].explains): ReportReader::read fills it.
  Report report() const;

 private:
  friend class ReportReader;
  RunReader(const ReportReader& report, const nlohmann::json& run, std::string context);

  const ReportReader* report_;
  const nlohmann::json* run_;
  std::string context_;  // "runs[3]"
};

// A report.json document whose schema was checked (loadReportJson or checkReportSchema,
// report_file.h), read into the typed structures by the same field names that report_json.cpp
// writes. Sizes, counts and times are unsigned integers (sizes at most 2^63 − 1: the gate
// subtracts them); fields the writer derives from others (totals of tallies, a site's class,
// idle.unexplained, summary.runs, a frame's text, max_explained_bytes) are not read. Fields that
// reports of memfloor.report/2 written by earlier versions lack (detection, anomalies.cut_tail,
// symbolized, an iteration memory's peak_composition) may be absent, and read as the writer's null
// or {}. A finding's item needs only `id`, `rule` and `message` (location, function, field,
// link_functions, snippet and explains are read when present): the rest is the checker's
// document, kept as it is.
class ReportReader {
 public:
  // `doc` and the string behind `path` must outlive the reader and the RunReaders it returns.
  ReportReader(const nlohmann::json& doc, std::string_view path);

  size_t runCount() const;
  RunReader run(size_t index) const;            // index < runCount()
  std::vector<LinkedFinding> findings() const;  // findings.items[], in order

  // Everything: write it with report_json.h's toJson and the document comes back (for the fields
  // read; tests/report/report_reader_test.cpp checks it on the shipped reports).
  MergedReport read() const;

  // The index in findings.items[] of the finding whose id is `id`; `field` names the reference in
  // the error when there is none.
  uint32_t findingIndex(const std::string& id, std::string_view field) const;

  std::string_view path() const { return path_; }

 private:
  const nlohmann::json* doc_;
  std::string_view path_;
  mutable std::optional<std::unordered_map<std::string, uint32_t>> ids_;  // built on first use
};

// ReportReader(doc, path).read().
MergedReport readReport(const nlohmann::json& doc, std::string_view path);

}  // namespace memfloor::report
