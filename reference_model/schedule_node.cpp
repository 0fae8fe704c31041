// ScheduleNode of the combined 1F1B schedule: one piece of forward work with inputs, output, state.
#include "schedule_node.h"

#include "autograd.h"
#include "context.h"

namespace refmodel {

ScheduleNode::ScheduleNode(std::string name, ForwardFn forward_fn, bool free_input)
    : name_(std::move(name)), forward_fn_(std::move(forward_fn)), free_input_(free_input) {}

Tensor ScheduleNode::forward(Context& ctx, const std::vector<Tensor>& inputs) {
  inputs_.clear();
  for (const Tensor& t : inputs) {
    Tensor alias = t.detach();
    alias.setRequiresGrad(t.requiresGrad() || t.gradFn() != nullptr);
    inputs_.push_back(alias);
  }
  output_ = forward_fn_(ctx, inputs_);
  if (free_input_) releaseTensorStorage(ctx, inputs_);
  return output_;
}

std::vector<Tensor> ScheduleNode::backward(Context& ctx, const Tensor& output_grad) {
  runBackward(ctx, output_, output_grad);
  std::vector<Tensor> grads = getGrad();
  releaseState();
  return grads;
}

std::vector<Tensor> ScheduleNode::getGrad() const {
  std::vector<Tensor> grads;
  for (const Tensor& t : inputs_) grads.push_back(t.grad());
  return grads;
}

void ScheduleNode::releaseState() {
  inputs_.clear();
  output_ = Tensor();
  forward_fn_ = nullptr;
}

std::int64_t ScheduleNode::heldInputBytes() const {
  std::int64_t bytes = 0;
  for (const Tensor& t : inputs_) {
    bytes += static_cast<std::int64_t>(t.storage()->bytes());
    if (t.grad().defined()) bytes += static_cast<std::int64_t>(t.grad().storage()->bytes());
  }
  return bytes;
}

void releaseTensorStorage(Context& ctx, const std::vector<Tensor>& tensors) {
  for (const Tensor& t : tensors) {
    if (!t.defined() || !t.storage()->resident()) continue;  // CUDA tensors only
    t.storage()->recordStream(ctx.stream());
    t.storage()->release();
  }
}

}  // namespace refmodel
