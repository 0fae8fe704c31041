// Seed 003 in C++: a schedule node's normal backward reads the input gradients and then releases
// its state; the combined 1F1B step reads the loss node's gradient directly and never releases it
// (MF001 on the type ScheduleNode, learned from the node's own backward).
#include "mini_std.h"

struct Tensor {
  float* data = nullptr;
};

void runBackward(const Tensor& output, const Tensor& grad);
Tensor runForward(const std::vector<Tensor>& inputs);

class ScheduleNode {
 public:
  Tensor forward(const std::vector<Tensor>& inputs) {
    inputs_ = inputs;
    output_ = runForward(inputs_);
    return output_;
  }
  std::vector<Tensor> backward(const Tensor& output_grad) {
    runBackward(output_, output_grad);
    std::vector<Tensor> grads = getGrad();
    releaseState();
    return grads;
  }
  std::vector<Tensor> getGrad() const { return inputs_; }
  // _release_state(): drops inputs and output.
  void releaseState() {
    inputs_.clear();
    output_ = Tensor();
  }
  const std::vector<Tensor>& inputs() const { return inputs_; }

 private:
  std::vector<Tensor> inputs_;
  Tensor output_;
};

struct MicroBatchChain {
  std::vector<std::shared_ptr<ScheduleNode>> nodes;
  std::shared_ptr<ScheduleNode> loss_node;
  Tensor loss;
};

void releaseTensorStorage(const std::vector<Tensor>& tensors);

class CombinedOneFOneB {
 public:
  // As shipped: the loss node keeps its inputs through the whole combined backward.
  void backwardChain(MicroBatchChain& chain) {
    runBackward(chain.loss, Tensor());
    std::vector<Tensor> grads = chain.loss_node->getGrad();  // expect: MF001{{while 'CombinedOneFOneB::backwardChainFixed' releases it after the same call}}
    for (std::shared_ptr<ScheduleNode>& node : chain.nodes) grads = node->backward(grads.front());
  }

  // The fix: release the loss node's state right after reading its gradient.
  void backwardChainFixed(MicroBatchChain& chain) {
    runBackward(chain.loss, Tensor());
    std::vector<Tensor> grads = chain.loss_node->getGrad();
    std::vector<Tensor> loss_inputs = chain.loss_node->inputs();
    chain.loss_node->releaseState();
    for (std::shared_ptr<ScheduleNode>& node : chain.nodes) grads = node->backward(grads.front());
    releaseTensorStorage(loss_inputs);
  }

  // Behind a flag, as in the reference model: released on some paths only.
  void backwardChainFlagged(MicroBatchChain& chain, bool keep_loss_inputs) {
    std::vector<Tensor> grads = chain.loss_node->getGrad();  // expect: MF001
    if (!keep_loss_inputs) chain.loss_node->releaseState();
    for (std::shared_ptr<ScheduleNode>& node : chain.nodes) grads = node->backward(grads.front());
  }

  // A node owned by the function dies with it: not a retention.
  void localNode() {
    std::shared_ptr<ScheduleNode> node = std::make_shared<ScheduleNode>();
    std::vector<Tensor> grads = node->getGrad();
  }
};
