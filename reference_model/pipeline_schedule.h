// The non-interleaved 1F1B pipeline order (pure logic, no CUDA): per stage, for one process, and
// for one rank per stage with its point-to-point transfers.
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

// A pipeline-boundary transfer of one rank: a forward activation goes to stage + 1 and comes from
// stage - 1; an input gradient goes to stage - 1 and comes from stage + 1.
struct Transfer {
  bool send;
  StepKind kind;  // kForward: an activation; kBackward: a gradient
  int micro_batch;
  bool operator==(const Transfer&) const = default;
  int peer(int stage) const { return (kind == StepKind::kForward) == send ? stage + 1 : stage - 1; }
};

// One entry of a rank's program: a compute step, or transfers posted together and waited for
// together (batched isend/irecv).
struct RankAction {
  std::vector<Transfer> transfers;  // empty for a compute step
  ScheduleStep step{};              // the compute step when transfers is empty
  bool isCompute() const { return transfers.empty(); }
};

// What one stage runs on its own rank, as Megatron's forward_backward_pipelining_without_interleaving
// does: receive before a step whose input is not there yet, send after a step; a send to the next
// stage followed by a backward is paired with that backward's receive (send_forward_recv_backward),
// a send to the previous stage followed by a forward with that forward's (send_backward_recv_forward).
std::vector<RankAction> oneFOneBRankProgram(int stages, int micro_batches, int stage);
std::string toString(const RankAction& action, int stage);

}  // namespace refmodel
