// The non-interleaved 1F1B pipeline order (pure logic, no CUDA): per stage, for one process, and
// for one rank per stage with its point-to-point transfers.
#include "pipeline_schedule.h"

#include <algorithm>
#include <optional>
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

std::vector<RankAction> oneFOneBRankProgram(int stages, int micro_batches, int stage) {
  const std::vector<ScheduleStep> order = oneFOneBStageOrder(stages, micro_batches, stage);
  const bool first = stage == 0;
  const bool last = stage == stages - 1;
  // The receive a step needs, if it has a neighbour to receive from.
  const auto receiveFor = [&](const ScheduleStep& step) -> std::optional<Transfer> {
    if (step.kind == StepKind::kForward ? first : last) return std::nullopt;
    return Transfer{false, step.kind, step.micro_batch};
  };
  std::vector<RankAction> program;
  bool input_posted = false;  // the next step's receive went out with the previous send
  for (std::size_t i = 0; i < order.size(); ++i) {
    const ScheduleStep& step = order[i];
    if (const auto receive = receiveFor(step); receive && !input_posted) {
      program.push_back({{*receive}, {}});
    }
    input_posted = false;
    program.push_back({{}, step});
    const bool forward = step.kind == StepKind::kForward;
    if (forward ? last : first) continue;  // nothing to send on
    RankAction send{{Transfer{true, step.kind, step.micro_batch}}, {}};
    if (i + 1 < order.size() && order[i + 1].kind != step.kind) {
      // the next step's input comes from the peer this send goes to: post both together
      if (const auto receive = receiveFor(order[i + 1])) {
        send.transfers.push_back(*receive);
        input_posted = true;
      }
    }
    program.push_back(std::move(send));
  }
  return program;
}

std::string toString(const RankAction& action, int stage) {
  if (action.isCompute()) return toString(action.step);
  std::string text;
  for (const Transfer& t : action.transfers) {
    if (!text.empty()) text += "+";
    text += std::string(t.send ? "send" : "recv") + (t.kind == StepKind::kForward ? "F" : "B") +
            std::to_string(t.micro_batch) + (t.send ? ">" : "<") + std::to_string(t.peer(stage));
  }
  return text;
}

}  // namespace refmodel
