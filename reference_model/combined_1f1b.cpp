// The combined 1F1B step: forward of micro-batch k+1 and backward of k in one call, with a loss node.
#include "combined_1f1b.h"

#include "autograd.h"
#include "context.h"
#include "gpt_model.h"
#include "kernels.h"
#include "ops_loss.h"
#include "recompute.h"

namespace refmodel {

std::shared_ptr<MicroBatchChain> CombinedOneFOneB::buildAndForward(Context& ctx,
                                                                   const MicroBatchData& data,
                                                                   int index, float loss_scale) {
  NvtxRange range("forward mb " + std::to_string(index));
  auto chain = std::make_shared<MicroBatchChain>();
  chain->micro_batch = index;
  GptModel* model = &model_;
  const Tensor tokens = data.tokens;
  const Tensor labels = data.labels;
  chain->nodes.push_back(std::make_shared<ScheduleNode>(
      "embedding", [model, tokens](Context& c, const std::vector<Tensor>&) {
        return model->embed(c, tokens);
      }));
  for (const auto& layer : model_.layers()) {
    TransformerLayer* l = layer.get();
    const bool recompute = model_.config().recompute == Recompute::kFull;
    chain->nodes.push_back(std::make_shared<ScheduleNode>(
        "layer " + std::to_string(l->layerNumber()),
        [l, recompute](Context& c, const std::vector<Tensor>& in) {
          return recompute ? checkpointedForward(c, *l, in[0]) : l->forward(c, in[0]);
        }));
  }
  chain->nodes.push_back(std::make_shared<ScheduleNode>(
      "post_process", [model, labels](Context& c, const std::vector<Tensor>& in) {
        return model->perTokenLoss(c, in[0], labels);
      }));
  chain->loss_node = std::make_shared<ScheduleNode>(
      "loss", [loss_scale](Context& c, const std::vector<Tensor>& in) {
        return scaledSum(c, in[0], loss_scale);
      });
  std::vector<Tensor> x;
  for (auto& node : chain->nodes) x = {node->forward(ctx, x)};
  chain->loss = chain->loss_node->forward(ctx, x);
  return chain;
}

void CombinedOneFOneB::backwardChain(Context& ctx, MicroBatchChain& chain) {
  NvtxRange range("backward mb " + std::to_string(chain.micro_batch));
  // The loss backward: a direct autograd backward on the loss and get_grad(); the node's normal
  // backward (and with it releaseState) is bypassed.
  runBackward(ctx, chain.loss, Tensor::full(ctx, {1}, DType::kFloat32, 1.f));
  std::vector<Tensor> grads = chain.loss_node->getGrad();
  std::vector<Tensor> loss_inputs;
  if (!bugs_.loss_node_inputs) {
    loss_inputs = chain.loss_node->inputs();
    chain.loss_node->releaseState();
    chain.loss = Tensor();
  }
  // The combined model backward, last node first.
  for (auto it = chain.nodes.rbegin(); it != chain.nodes.rend(); ++it) {
    const Tensor grad = grads.empty() ? Tensor() : grads.front();
    grads = (*it)->backward(ctx, grad);
    if (!loss_inputs.empty()) {
      // the post-process node has consumed the loss gradient: free the loss inputs' storage
      releaseTensorStorage(ctx, loss_inputs);
      loss_inputs.clear();
    }
  }
  probes_.push_back({chain.micro_batch, ctx.allocator().liveBytes(),
                     chain.loss_node->heldInputBytes()});
}

std::shared_ptr<MicroBatchChain> CombinedOneFOneB::combinedForwardBackwardStep(
    Context& ctx, const MicroBatchData* forward_data, int forward_index,
    std::shared_ptr<MicroBatchChain> backward_chain, float loss_scale) {
  std::shared_ptr<MicroBatchChain> next;
  if (forward_data != nullptr) next = buildAndForward(ctx, *forward_data, forward_index, loss_scale);
  if (backward_chain) backwardChain(ctx, *backward_chain);
  return next;
}

Tensor CombinedOneFOneB::run(Context& ctx, const std::vector<MicroBatchData>& data) {
  const int m = static_cast<int>(data.size());
  const float scale = lossScale(data.front().tokens.numel(), data.size());
  Tensor loss_total = Tensor::zeros(ctx, {1}, DType::kFloat32);
  std::shared_ptr<MicroBatchChain> handle;
  for (int k = -1; k < m; ++k) {
    const MicroBatchData* forward_data = k + 1 < m ? &data[static_cast<std::size_t>(k + 1)] : nullptr;
    std::shared_ptr<MicroBatchChain> next =
        combinedForwardBackwardStep(ctx, forward_data, k + 1, handle, scale);
    if (next) {
      kernels::addInto(loss_total.data(), DType::kFloat32, next->loss.data(), DType::kFloat32, 1,
                       1.f, ctx.stream());
    }
    handle = std::move(next);  // the old chain (and, with the bug, its loss node) dies here
  }
  model_.offloadManager().reset();
  return loss_total;
}

}  // namespace refmodel
