// ScheduleNode of the combined 1F1B schedule: one piece of forward work with inputs, output, state.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "tensor.h"

namespace refmodel {

class Context;

// Wraps one piece of forward work. forward() keeps detached aliases of its inputs (they share
// storage with the producer's tensors and require grad) and the output; backward() runs autograd
// from the output, reads the input gradients (getGrad) and then drops its state (releaseState).
class ScheduleNode {
 public:
  using ForwardFn = std::function<Tensor(Context&, const std::vector<Tensor>&)>;

  ScheduleNode(std::string name, ForwardFn forward_fn, bool free_input = false);

  Tensor forward(Context& ctx, const std::vector<Tensor>& inputs);
  // The normal backward path: backward from the output, input gradients, then releaseState().
  std::vector<Tensor> backward(Context& ctx, const Tensor& output_grad);
  std::vector<Tensor> getGrad() const;
  // _release_state(): drops inputs, output and the forward callable.
  void releaseState();

  const std::string& name() const { return name_; }
  const std::vector<Tensor>& inputs() const { return inputs_; }
  const Tensor& output() const { return output_; }
  // Device bytes this node keeps reachable through its inputs (storage and gradients).
  std::int64_t heldInputBytes() const;

 private:
  std::string name_;
  ForwardFn forward_fn_;
  bool free_input_;
  std::vector<Tensor> inputs_;
  Tensor output_;
};

// record_stream(current stream) then resize_(0) for each tensor: frees the storage for every alias.
// The one shared helper for the three places the framework had this two-liner.
void releaseTensorStorage(Context& ctx, const std::vector<Tensor>& tensors);

}  // namespace refmodel
