// Tensor handle: shape, dtype and an alias-shared Storage, plus the autograd fields PyTorch keeps.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "dtype.h"
#include "storage.h"

namespace refmodel {

class Context;
class Node;

using Shape = std::vector<std::int64_t>;

struct TensorImpl {
  std::shared_ptr<Storage> storage;
  std::int64_t offset = 0;  // in elements
  Shape shape;
  DType dtype = DType::kFloat32;
  bool requires_grad = false;
  std::shared_ptr<Node> grad_fn;         // the node that produced it (owns the graph behind it)
  std::shared_ptr<TensorImpl> grad;      // accumulated gradient (leaves)
  std::weak_ptr<Node> grad_accumulator;  // a leaf's AccumulateGrad; the graph owns it, not the leaf
};

// A cheap handle (copying it adds an owner, as a Python reference does). Tensors made by detach()
// or view() are aliases: they share the Storage.
class Tensor {
 public:
  Tensor() = default;
  explicit Tensor(std::shared_ptr<TensorImpl> impl) : impl_(std::move(impl)) {}

  static Tensor empty(Context& ctx, Shape shape, DType dtype);
  static Tensor zeros(Context& ctx, Shape shape, DType dtype);
  static Tensor full(Context& ctx, Shape shape, DType dtype, float value);
  static Tensor normal(Context& ctx, Shape shape, DType dtype, float stddev, std::uint64_t seed);
  static Tensor fromHost(Context& ctx, const std::vector<float>& values, Shape shape, DType dtype);

  bool defined() const { return impl_ != nullptr; }
  const Shape& shape() const { return impl_->shape; }
  std::int64_t size(std::size_t dim) const { return impl_->shape.at(dim); }
  std::int64_t numel() const;
  DType dtype() const { return impl_->dtype; }
  std::size_t nbytes() const { return static_cast<std::size_t>(numel()) * elementSize(dtype()); }
  void* data() const;
  template <typename T>
  T* dataAs() const {
    return static_cast<T*>(data());
  }
  const std::shared_ptr<Storage>& storage() const { return impl_->storage; }
  const std::shared_ptr<TensorImpl>& impl() const { return impl_; }

  Tensor detach() const;             // alias without history
  Tensor view(Shape shape) const;    // alias with the same history (same number of elements)
  Tensor clone(Context& ctx) const;  // new storage, no history
  Tensor to(Context& ctx, DType dtype) const;

  bool requiresGrad() const { return impl_->requires_grad; }
  void setRequiresGrad(bool value) { impl_->requires_grad = value; }
  const std::shared_ptr<Node>& gradFn() const { return impl_->grad_fn; }
  void setGradFn(std::shared_ptr<Node> node) { impl_->grad_fn = std::move(node); }
  Tensor grad() const { return Tensor(impl_->grad); }
  void setGrad(const Tensor& grad) { impl_->grad = grad.impl_; }

  // Output pseudo-free of the pipeline schedule: the data becomes a 1-element buffer, the autograd
  // node stays (backward needs only the graph and the incoming gradient).
  void pseudoFree(Context& ctx);

  std::vector<float> toHost(Context& ctx) const;  // synchronises; tests and printing only

 private:
  std::shared_ptr<TensorImpl> impl_;
};

std::int64_t numelOf(const Shape& shape);
std::string shapeString(const Shape& shape);

}  // namespace refmodel
