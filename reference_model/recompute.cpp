// Full activation recompute: forward without a graph, the layer re-run with a graph in backward.
#include "recompute.h"

#include "autograd.h"
#include "context.h"
#include "transformer_layer.h"

namespace refmodel {

namespace {

class CheckpointNode : public Node {
 public:
  CheckpointNode(TransformerLayer& layer, Tensor input)
      : Node("CheckpointFunctionBackward"), layer_(&layer), input_(std::move(input)) {}

  std::vector<Tensor> apply(Context& ctx, const Tensor& grad_output) override {
    GradModeGuard grad_on(ctx, true);
    Tensor detached = input_.detach();
    detached.setRequiresGrad(true);
    Tensor output = layer_->forward(ctx, detached);
    runBackward(ctx, output, grad_output);
    return {detached.grad()};
  }

  void releaseSavedTensors() override { input_ = Tensor(); }

 private:
  TransformerLayer* layer_;
  Tensor input_;
};

}  // namespace

Tensor checkpointedForward(Context& ctx, TransformerLayer& layer, const Tensor& input) {
  Tensor output;
  {
    GradModeGuard no_grad(ctx, false);
    output = layer.forward(ctx, input);
  }
  if (ctx.gradEnabled()) {
    connect(output, std::make_shared<CheckpointNode>(layer, input), {input});
  }
  return output;
}

}  // namespace refmodel
