// Reverse-mode autograd: nodes own their saved tensors and their next nodes, as in PyTorch.
#pragma once

#include <initializer_list>
#include <memory>
#include <string>
#include <vector>

#include "tensor.h"

namespace refmodel {

class Context;

// A backward function. It owns what it saved and (through next_) the nodes behind it, so any
// reference to an output tensor keeps the whole history alive, exactly as a PyTorch grad_fn does.
class Node {
 public:
  explicit Node(std::string name) : name_(std::move(name)) {}
  virtual ~Node() = default;
  Node(const Node&) = delete;
  Node& operator=(const Node&) = delete;

  // One gradient per entry of next(); an undefined Tensor means "no gradient for that input".
  virtual std::vector<Tensor> apply(Context& ctx, const Tensor& grad_output) = 0;
  // Built-in ops drop their saved tensors once their backward ran (PyTorch's SavedVariable with
  // retain_graph=False). Custom fused functions that keep tensors as context attributes, as a
  // Python autograd.Function does with `ctx.x = x`, do not override this and keep them.
  virtual void releaseSavedTensors() {}

  const std::string& name() const { return name_; }
  const std::vector<std::shared_ptr<Node>>& next() const { return next_; }
  void setNext(std::vector<std::shared_ptr<Node>> next) { next_ = std::move(next); }

 private:
  std::string name_;
  std::vector<std::shared_ptr<Node>> next_;
};

// The sink of a leaf that requires grad: adds into leaf.grad. Holds the leaf strongly, so a graph
// that reaches a leaf keeps the leaf's storage and its .grad alive (PyTorch does the same).
class AccumulateGrad : public Node {
 public:
  explicit AccumulateGrad(std::shared_ptr<TensorImpl> variable)
      : Node("AccumulateGrad"), variable_(std::move(variable)) {}
  std::vector<Tensor> apply(Context& ctx, const Tensor& grad_output) override;

 private:
  std::shared_ptr<TensorImpl> variable_;
};

// The edge a tensor contributes: its grad_fn, a leaf's accumulator, or null.
std::shared_ptr<Node> gradEdge(const Tensor& tensor);
// True when grad mode is on and one of the (defined) inputs requires grad.
bool needsGrad(const Context& ctx, std::initializer_list<Tensor> inputs);
// Makes `node` the grad_fn of `output`, its next edges those of `inputs` (undefined ones: null).
void connect(Tensor& output, std::shared_ptr<Node> node, std::initializer_list<Tensor> inputs);
// Runs backward from `root` seeded with `grad` (same number of elements as root).
void runBackward(Context& ctx, const Tensor& root, const Tensor& grad);
// a + b out of place (dtype of a).
Tensor addTensors(Context& ctx, const Tensor& a, const Tensor& b);

}  // namespace refmodel
