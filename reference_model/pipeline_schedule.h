// The non-interleaved 1F1B pipeline order (pure logic, no CUDA): per stage and for one process.
#pragma once

#include <string>
#include <vector>

namespace refmodel {

enum class StepKind { kForward, kBackward };

struct ScheduleStep {
  int stage;
  StepKind kind;
  int micro_batch;
  bool operator==(const ScheduleStep&) const = default;
};

struct StageCounts {
  int warmup;    // forwards before the first backward: min(p - r - 1, m)
  int steady;    // (forward, backward) pairs: m - warmup
  int cooldown;  // backwards after the last forward: warmup
};

StageCounts oneFOneBCounts(int stages, int micro_batches, int stage);
// The order one stage runs its steps in: warm-up forwards, steady 1F1B, cool-down backwards.
std::vector<ScheduleStep> oneFOneBStageOrder(int stages, int micro_batches, int stage);
// All stages in one process: repeatedly lets every stage (first to last) run its next step once
// that step's input exists (forward k of stage r after forward k of r-1, backward k of r after
// backward k of r+1). Throws std::logic_error if the order cannot be completed.
std::vector<ScheduleStep> oneFOneBGlobalOrder(int stages, int micro_batches);
std::string toString(const ScheduleStep& step);

}  // namespace refmodel
