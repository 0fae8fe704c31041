// Runs the 1F1B schedule over the pipeline stages of one process (one GPU), with output pseudo-free.
#pragma once

#include <string>
#include <vector>

#include "tensor.h"

namespace refmodel {

class Context;
class GptModel;

struct MicroBatchData {
  Tensor tokens;  // int32 [tokens]
  Tensor labels;  // int32 [tokens]
};

// Stage r's forward of micro-batch k receives stage r-1's output as a fresh buffer (the p2p recv),
// after which the sender pseudo-frees its output; backward sends the input gradient back the same
// way. Returns the iteration's loss (mean over tokens and micro-batches) as fp32 [1] on the device.
class PipelineExecutor {
 public:
  explicit PipelineExecutor(std::vector<GptModel*> stages) : stages_(std::move(stages)) {}
  Tensor run(Context& ctx, const std::vector<MicroBatchData>& data);

 private:
  std::vector<GptModel*> stages_;
};

// The mean-loss scale for one micro-batch: 1 / (tokens * micro_batches).
float lossScale(std::int64_t tokens, std::size_t micro_batches);
// One stage's forward of one micro-batch. On the last stage the output is the micro-batch's loss
// times `scale`, also added into `loss_total`; elsewhere it is the hidden state for the next stage.
Tensor forwardStage(Context& ctx, GptModel& stage, const Tensor& input, const MicroBatchData& mb,
                    bool last, float scale, Tensor& loss_total);
// An NVTX range for the lifetime of the object (plain NVTX: the tool needs no header of ours).
class NvtxRange {
 public:
  explicit NvtxRange(const std::string& name);
  ~NvtxRange();
  NvtxRange(const NvtxRange&) = delete;
  NvtxRange& operator=(const NvtxRange&) = delete;
};

}  // namespace refmodel
