// Reverse-mode autograd: dependency counting, gradient accumulation and the backward walk.
#include "autograd.h"

#include <unordered_map>

#include "context.h"
#include "kernels.h"

namespace refmodel {

std::vector<Tensor> AccumulateGrad::apply(Context& ctx, const Tensor& grad_output) {
  Tensor leaf(variable_);
  Tensor existing = leaf.grad();
  if (existing.defined()) {
    kernels::addInto(existing.data(), existing.dtype(), grad_output.data(), grad_output.dtype(),
                     existing.numel(), 1.f, ctx.stream());
  } else if (grad_output.dtype() == leaf.dtype()) {
    leaf.setGrad(grad_output.view(leaf.shape()).detach());
  } else {
    leaf.setGrad(grad_output.view(leaf.shape()).to(ctx, leaf.dtype()));
  }
  return {};
}

std::shared_ptr<Node> gradEdge(const Tensor& tensor) {
  if (!tensor.defined()) return nullptr;
  if (tensor.gradFn()) return tensor.gradFn();
  if (!tensor.requiresGrad()) return nullptr;
  auto& impl = *tensor.impl();
  std::shared_ptr<Node> accumulator = impl.grad_accumulator.lock();
  if (!accumulator) {
    accumulator = std::make_shared<AccumulateGrad>(tensor.impl());
    impl.grad_accumulator = accumulator;
  }
  return accumulator;
}

bool needsGrad(const Context& ctx, std::initializer_list<Tensor> inputs) {
  if (!ctx.gradEnabled()) return false;
  for (const Tensor& t : inputs) {
    if (t.defined() && (t.requiresGrad() || t.gradFn())) return true;
  }
  return false;
}

void connect(Tensor& output, std::shared_ptr<Node> node, std::initializer_list<Tensor> inputs) {
  std::vector<std::shared_ptr<Node>> next;
  next.reserve(inputs.size());
  for (const Tensor& t : inputs) next.push_back(gradEdge(t));
  node->setNext(std::move(next));
  output.setGradFn(std::move(node));
  output.setRequiresGrad(true);
}

Tensor addTensors(Context& ctx, const Tensor& a, const Tensor& b) {
  Tensor sum = a.clone(ctx);
  kernels::addInto(sum.data(), sum.dtype(), b.data(), b.dtype(), sum.numel(), 1.f, ctx.stream());
  return sum;
}

void runBackward(Context& ctx, const Tensor& root, const Tensor& grad) {
  std::shared_ptr<Node> root_fn = gradEdge(root);
  if (!root_fn) return;
  // grad may be larger than root: a pseudo-freed output keeps only its graph

  // Count, for every node reachable from the root, how many edges point at it.
  std::unordered_map<Node*, int> dependencies;
  std::vector<Node*> stack{root_fn.get()};
  dependencies[root_fn.get()] = 0;
  while (!stack.empty()) {
    Node* node = stack.back();
    stack.pop_back();
    for (const auto& next : node->next()) {
      if (!next) continue;
      auto [it, inserted] = dependencies.try_emplace(next.get(), 0);
      ++it->second;
      if (inserted) stack.push_back(next.get());
    }
  }

  std::unordered_map<Node*, Tensor> buffers;
  buffers[root_fn.get()] = grad;
  std::vector<std::shared_ptr<Node>> ready{root_fn};
  while (!ready.empty()) {
    std::shared_ptr<Node> node = std::move(ready.back());
    ready.pop_back();
    Tensor grad_output = std::move(buffers[node.get()]);
    buffers.erase(node.get());
    std::vector<Tensor> grads;
    if (grad_output.defined()) {
      grads = node->apply(ctx, grad_output);
      node->releaseSavedTensors();
    }
    grad_output = Tensor();
    const auto& next = node->next();
    for (std::size_t i = 0; i < next.size(); ++i) {
      if (!next[i]) continue;
      Node* target = next[i].get();
      if (i < grads.size() && grads[i].defined()) {
        Tensor& slot = buffers[target];
        slot = slot.defined() ? addTensors(ctx, slot, grads[i]) : grads[i];
      }
      if (--dependencies[target] == 0) ready.push_back(next[i]);
    }
  }
}

}  // namespace refmodel
