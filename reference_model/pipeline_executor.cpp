// Runs the 1F1B schedule over the pipeline stages of one process (one GPU), with output pseudo-free.
#include "pipeline_executor.h"

#include <nvtx3/nvToolsExt.h>

#include <map>
#include <utility>

#include "autograd.h"
#include "context.h"
#include "gpt_model.h"
#include "kernels.h"
#include "ops_loss.h"
#include "pipeline_schedule.h"

namespace refmodel {

NvtxRange::NvtxRange(const std::string& name) { nvtxRangePushA(name.c_str()); }
NvtxRange::~NvtxRange() { nvtxRangePop(); }

float lossScale(std::int64_t tokens, std::size_t micro_batches) {
  return 1.f / static_cast<float>(tokens * static_cast<std::int64_t>(micro_batches));
}

Tensor forwardStage(Context& ctx, GptModel& stage, const Tensor& input, const MicroBatchData& mb,
                    bool last, float scale, Tensor& loss_total) {
  Tensor output = stage.forward(ctx, input, mb.labels);
  if (!last) return output;
  output = scaledSum(ctx, output, scale);
  kernels::addInto(loss_total.data(), DType::kFloat32, output.data(), DType::kFloat32, 1, 1.f,
                   ctx.stream());
  return output;
}

Tensor PipelineExecutor::run(Context& ctx, const std::vector<MicroBatchData>& data) {
  const int stages = static_cast<int>(stages_.size());
  const int micro_batches = static_cast<int>(data.size());
  const float scale = lossScale(data.front().tokens.numel(), data.size());
  Tensor loss_total = Tensor::zeros(ctx, {1}, DType::kFloat32);
  struct InFlight {
    Tensor input;
    Tensor output;
  };
  std::map<std::pair<int, int>, InFlight> in_flight;      // (stage, micro-batch)
  std::map<std::pair<int, int>, Tensor> received;         // activations sent forward
  std::map<std::pair<int, int>, Tensor> received_grads;   // gradients sent backward
  const auto suffix = [&](const ScheduleStep& s) {
    return " mb " + std::to_string(s.micro_batch) +
           (stages > 1 ? " stage " + std::to_string(s.stage) : std::string());
  };
  for (const ScheduleStep& step : oneFOneBGlobalOrder(stages, micro_batches)) {
    GptModel& model = *stages_[static_cast<std::size_t>(step.stage)];
    const auto key = std::make_pair(step.stage, step.micro_batch);
    const auto& mb = data[static_cast<std::size_t>(step.micro_batch)];
    const bool last = step.stage == stages - 1;
    if (step.kind == StepKind::kForward) {
      NvtxRange range("forward" + suffix(step));
      Tensor input = mb.tokens;
      if (step.stage > 0) {
        input = received.at(key);
        received.erase(key);
        input.setRequiresGrad(true);
      }
      Tensor output = forwardStage(ctx, model, input, mb, last, scale, loss_total);
      if (!last) {
        received[{step.stage + 1, step.micro_batch}] = output.detach().clone(ctx);
        output.pseudoFree(ctx);
      }
      in_flight[key] = {input, output};
    } else {
      NvtxRange range("backward" + suffix(step));
      InFlight state = std::move(in_flight.at(key));
      in_flight.erase(key);
      Tensor grad;
      if (last) {
        grad = Tensor::full(ctx, {1}, DType::kFloat32, 1.f);
      } else {
        grad = received_grads.at(key);
        received_grads.erase(key);
      }
      runBackward(ctx, state.output, grad);
      if (step.stage > 0) {
        received_grads[{step.stage - 1, step.micro_batch}] = state.input.grad().clone(ctx);
      }
    }
  }
  for (GptModel* stage : stages_) stage->offloadManager().reset();
  return loss_total;
}

}  // namespace refmodel
