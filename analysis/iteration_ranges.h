// Alike iterations stored once: a long run's report grows with what changes, not with its length
// (docs/report-schema.md, "iteration_ranges[]").
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "analysis/report.h"

namespace memfloor::analysis {

// Alike iterations shorter than this stay whole rows: they cost little and read better.
inline constexpr uint32_t kMinRangeIterations = 16;

// Rows in, kept rows and ranges out, one row at a time, so that a long run never holds all its
// rows. Which rows are kept and when two windows are the same: docs/report-schema.md. Give it the
// rows in order (index 1, 2, ...), then finish() once.
class IterationCompactor {
 public:
  // `kept[i]`: row i + 1 stays whole whatever its window (warm-up, last, steady floor, largest
  // peak, census: Analysis decides). `explained`: the report's entries, one window each, by finding
  // then iteration; they must outlive the compactor. `enabled` false: every row is kept.
  IterationCompactor(std::vector<bool> kept, const std::vector<Explained>& explained, bool enabled);
  ~IterationCompactor();
  IterationCompactor(const IterationCompactor&) = delete;
  IterationCompactor& operator=(const IterationCompactor&) = delete;

  // Into report.iterations or report.iteration_ranges, now or when the run it belongs to ends.
  void add(IterationRow row, Report& report);
  // The last run, and report.explained's entries of consecutive windows that retain the same
  // merged into one.
  void finish(Report& report);

 private:
  struct State;
  std::unique_ptr<State> state_;
};

// Every iteration of the run: the rows kept whole and those of the ranges.
uint32_t iterationCount(const Report& report);

// The row whose idle window iteration `index` (1-based) has: its own, or for an iteration of a
// range, the row the range repeats. nullptr when the run has no such iteration.
const IterationRow* windowOf(const Report& report, uint32_t index);

}  // namespace memfloor::analysis
