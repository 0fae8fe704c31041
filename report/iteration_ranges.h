// Alike iterations, and iterations along a linear trend, stored once: a long run's report grows
// with what changes, not with its length (docs/report-schema.md, "iteration_ranges[]").
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "report/model.h"

namespace memfloor::report {

// Alike (or trend) iterations fewer than this stay whole rows: they cost little and read better.
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
// range, the row the range repeats, moved along the range's step (windowIn). None when the run has
// no such iteration, or its range's like row.
std::optional<IterationRow> windowOf(const Report& report, uint32_t index);

// `like` (the row range.like names) with its idle window moved to iteration `index`'s of the range:
// the stepped numbers plus (index - like) steps. The range must expand (stepFault).
IterationRow windowIn(const IterationRange& range, const IterationRow& like, uint32_t index);

// Why `range` cannot be expanded from `like`, for a reader of untrusted input: its step's shape
// differs from like's ("memory: 2 entries, iteration 3 has 1"), or a stepped number leaves
// 0..2^63-1, the bytes a report may hold, within the range ("memory[0].retained.leak.bytes: ...").
// Empty when it expands.
std::string stepFault(const IterationRange& range, const IterationRow& like);

}  // namespace memfloor::report
