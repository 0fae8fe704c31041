// Runs one pipeline stage's 1F1B program on its own rank: compute steps and boundary transfers.
#include "rank_executor.h"

#include <map>
#include <stdexcept>

#include "autograd.h"
#include "config.h"
#include "context.h"
#include "gpt_model.h"
#include "pipeline_schedule.h"

namespace refmodel {

void validateRanks(const Config& config, int world_size) {
  if (config.pipeline_stages != world_size) {
    throw ConfigError("--pipeline-stages " + std::to_string(config.pipeline_stages) +
                      " must equal the job's world size " + std::to_string(world_size) +
                      " (one stage per rank)");
  }
  if (config.schedule != Schedule::kOneFOneB) {
    throw ConfigError("ranks run --schedule 1f1b; combined-1f1b runs one stage in one process");
  }
  if (config.eval) throw ConfigError("--eval runs in one process (it needs every stage)");
}

namespace {

Tensor take(std::map<int, Tensor>& tensors, int micro_batch) {
  auto it = tensors.find(micro_batch);
  if (it == tensors.end()) throw std::logic_error("rank program: no tensor for micro-batch");
  Tensor t = std::move(it->second);
  tensors.erase(it);
  return t;
}

}  // namespace

Tensor RankExecutor::run(Context& ctx, const std::vector<MicroBatchData>& data) {
  const int stage = place_.rank;
  const int stages = place_.world_size;
  const bool first = stage == 0;
  const bool last = stage == stages - 1;
  const ModelConfig& m = stage_.config();
  // The hidden state between stages: [tokens, n*h] (GptModel::embed), and its gradient.
  const Shape boundary{m.tokens(), m.residualStreams() * m.hidden};
  const float scale = lossScale(data.front().tokens.numel(), data.size());
  Tensor loss_total = Tensor::zeros(ctx, {1}, DType::kFloat32);
  struct InFlight {
    Tensor input;
    Tensor output;
  };
  std::map<int, InFlight> in_flight;
  std::map<int, Tensor> received[2];  // by StepKind: activations, output gradients
  std::map<int, Tensor> to_send[2];   // by StepKind: outputs, input gradients
  for (const RankAction& action :
       oneFOneBRankProgram(stages, static_cast<int>(data.size()), stage)) {
    if (!action.isCompute()) {
      NvtxRange range("p2p " + toString(action, stage));
      std::vector<LinkOp> ops;
      std::vector<Tensor> sent;
      for (const Transfer& t : action.transfers) {
        const auto kind = static_cast<std::size_t>(t.kind);
        if (t.send) {
          Tensor tensor = take(to_send[kind], t.micro_batch);
          if (tensor.shape() != boundary || tensor.dtype() != m.dtype) {
            throw std::logic_error("rank program: a boundary tensor of shape " +
                                   shapeString(tensor.shape()) + ", expected " +
                                   shapeString(boundary));
          }
          ops.push_back({true, t.peer(stage), tensor});
          sent.push_back(std::move(tensor));
        } else {
          Tensor buffer = Tensor::empty(ctx, boundary, m.dtype);
          received[kind][t.micro_batch] = buffer;
          ops.push_back({false, t.peer(stage), std::move(buffer)});
        }
      }
      place_.link->exchange(ctx, ops);
      // Megatron's deallocate_output_tensor: a sent output keeps only its graph. Sent gradients
      // die with `sent` (their frees are ordered after the send on the stream).
      for (std::size_t i = 0; i < ops.size(); ++i) {
        if (ops[i].send && action.transfers[i].kind == StepKind::kForward) ops[i].tensor.pseudoFree(ctx);
      }
      continue;
    }
    const ScheduleStep& step = action.step;
    const auto& mb = data[static_cast<std::size_t>(step.micro_batch)];
    const std::string suffix = " mb " + std::to_string(step.micro_batch) + " stage " +
                               std::to_string(stage);
    if (step.kind == StepKind::kForward) {
      NvtxRange range("forward" + suffix);
      Tensor input = mb.tokens;
      if (!first) {
        input = take(received[0], step.micro_batch);
        input.setRequiresGrad(true);
      }
      Tensor output = forwardStage(ctx, stage_, input, mb, last, scale, loss_total);
      if (!last) to_send[0][step.micro_batch] = output;
      in_flight[step.micro_batch] = {input, output};
    } else {
      NvtxRange range("backward" + suffix);
      auto it = in_flight.find(step.micro_batch);
      if (it == in_flight.end()) throw std::logic_error("rank program: backward before forward");
      InFlight state = std::move(it->second);
      in_flight.erase(it);
      const Tensor grad = last ? Tensor::full(ctx, {1}, DType::kFloat32, 1.f)
                               : take(received[1], step.micro_batch);
      runBackward(ctx, state.output, grad);
      if (!first) to_send[1][step.micro_batch] = state.input.grad();
    }
  }
  stage_.offloadManager().reset();
  return loss_total;
}

}  // namespace refmodel
