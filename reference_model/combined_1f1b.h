// The combined 1F1B step: forward of micro-batch k+1 and backward of k in one call, with a loss node.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "config.h"
#include "pipeline_executor.h"
#include "schedule_node.h"

namespace refmodel {

class Context;
class GptModel;

// One micro-batch's schedule nodes; the handle that rides on the output to the next call.
struct MicroBatchChain {
  int micro_batch = 0;
  std::vector<std::shared_ptr<ScheduleNode>> nodes;  // embedding, layers..., post-process
  std::shared_ptr<ScheduleNode> loss_node;
  Tensor loss;  // the loss node's output, fp32 [1]
};

struct CombinedProbe {
  int micro_batch;
  std::int64_t live_bytes;            // allocator live bytes at the end of the model backward
  std::int64_t loss_node_held_bytes;  // what the loss node still reaches at that point
};

// Runs one stage (single GPU) with the combined schedule: F(0); then (F(k+1) + B(k)) for
// k = 0..m-2; then B(m-1). With --bug loss-node-inputs the backward bypasses the loss node's
// normal release (seed 003): the node and its fp32 per-token loss input stay alive through the
// whole combined model backward.
class CombinedOneFOneB {
 public:
  CombinedOneFOneB(GptModel& model, BugFlags bugs) : model_(model), bugs_(bugs) {}

  Tensor run(Context& ctx, const std::vector<MicroBatchData>& data);
  std::shared_ptr<MicroBatchChain> combinedForwardBackwardStep(
      Context& ctx, const MicroBatchData* forward_data, int forward_index,
      std::shared_ptr<MicroBatchChain> backward_chain, float loss_scale);
  const std::vector<CombinedProbe>& probes() const { return probes_; }
  void clearProbes() { probes_.clear(); }

 private:
  std::shared_ptr<MicroBatchChain> buildAndForward(Context& ctx, const MicroBatchData& data,
                                                   int index, float loss_scale);
  void backwardChain(Context& ctx, MicroBatchChain& chain);

  GptModel& model_;
  BugFlags bugs_;
  std::vector<CombinedProbe> probes_;
};

}  // namespace refmodel
