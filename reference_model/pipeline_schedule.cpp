// The non-interleaved 1F1B pipeline order (pure logic, no CUDA): per stage and for one process.
#include "pipeline_schedule.h"

#include <algorithm>
#include <stdexcept>

namespace refmodel {

StageCounts oneFOneBCounts(int stages, int micro_batches, int stage) {
  const int warmup = std::min(stages - stage - 1, micro_batches);
  return {warmup, micro_batches - warmup, warmup};
}

std::vector<ScheduleStep> oneFOneBStageOrder(int stages, int micro_batches, int stage) {
  const StageCounts counts = oneFOneBCounts(stages, micro_batches, stage);
  std::vector<ScheduleStep> order;
  int next_forward = 0;
  int next_backward = 0;
  for (int i = 0; i < counts.warmup; ++i) order.push_back({stage, StepKind::kForward, next_forward++});
  for (int i = 0; i < counts.steady; ++i) {
    order.push_back({stage, StepKind::kForward, next_forward++});
    order.push_back({stage, StepKind::kBackward, next_backward++});
  }
  for (int i = 0; i < counts.cooldown; ++i) {
    order.push_back({stage, StepKind::kBackward, next_backward++});
  }
  return order;
}

std::vector<ScheduleStep> oneFOneBGlobalOrder(int stages, int micro_batches) {
  std::vector<std::vector<ScheduleStep>> per_stage;
  for (int r = 0; r < stages; ++r) per_stage.push_back(oneFOneBStageOrder(stages, micro_batches, r));
  std::vector<std::size_t> cursor(static_cast<std::size_t>(stages), 0);
  // forwards_done[r] / backwards_done[r]: how many of each kind stage r has completed (in order)
  std::vector<int> forwards_done(static_cast<std::size_t>(stages), 0);
  std::vector<int> backwards_done(static_cast<std::size_t>(stages), 0);
  std::vector<ScheduleStep> order;
  const std::size_t total = static_cast<std::size_t>(stages) * 2 * static_cast<std::size_t>(micro_batches);
  while (order.size() < total) {
    bool progressed = false;
    for (int r = 0; r < stages; ++r) {
      const auto ri = static_cast<std::size_t>(r);
      if (cursor[ri] >= per_stage[ri].size()) continue;
      const ScheduleStep& step = per_stage[ri][cursor[ri]];
      bool ready = false;
      if (step.kind == StepKind::kForward) {
        ready = r == 0 || forwards_done[ri - 1] > step.micro_batch;
      } else {
        ready = r == stages - 1 || backwards_done[ri + 1] > step.micro_batch;
      }
      if (!ready) continue;
      order.push_back(step);
      ++(step.kind == StepKind::kForward ? forwards_done[ri] : backwards_done[ri]);
      ++cursor[ri];
      progressed = true;
    }
    if (!progressed) throw std::logic_error("1F1B order cannot be completed");
  }
  return order;
}

std::string toString(const ScheduleStep& step) {
  return std::string(step.kind == StepKind::kForward ? "F" : "B") + std::to_string(step.micro_batch) +
         "@" + std::to_string(step.stage);
}

}  // namespace refmodel
