// Tensor handle: shape, dtype and an alias-shared Storage, plus the autograd fields PyTorch keeps.
#include "tensor.h"

#include <cassert>

#include "context.h"
#include "cuda_check.h"
#include "kernels.h"

namespace refmodel {

std::int64_t numelOf(const Shape& shape) {
  std::int64_t n = 1;
  for (std::int64_t d : shape) n *= d;
  return n;
}

std::string shapeString(const Shape& shape) {
  std::string out = "[";
  for (std::size_t i = 0; i < shape.size(); ++i) {
    out += (i ? ", " : "") + std::to_string(shape[i]);
  }
  return out + "]";
}

Tensor Tensor::empty(Context& ctx, Shape shape, DType dtype) {
  auto impl = std::make_shared<TensorImpl>();
  const auto bytes = static_cast<std::size_t>(numelOf(shape)) * elementSize(dtype);
  impl->storage = std::make_shared<Storage>(ctx.allocator(), bytes, ctx.stream());
  impl->shape = std::move(shape);
  impl->dtype = dtype;
  return Tensor(std::move(impl));
}

Tensor Tensor::zeros(Context& ctx, Shape shape, DType dtype) {
  Tensor t = empty(ctx, std::move(shape), dtype);
  REFMODEL_CUDA(cudaMemsetAsync(t.data(), 0, t.nbytes(), ctx.stream()));
  return t;
}

Tensor Tensor::full(Context& ctx, Shape shape, DType dtype, float value) {
  Tensor t = empty(ctx, std::move(shape), dtype);
  kernels::fill(t.data(), dtype, t.numel(), value, ctx.stream());
  return t;
}

Tensor Tensor::normal(Context& ctx, Shape shape, DType dtype, float stddev, std::uint64_t seed) {
  Tensor t = empty(ctx, std::move(shape), dtype);
  kernels::fillNormal(t.data(), dtype, t.numel(), stddev, seed, ctx.stream());
  return t;
}

Tensor Tensor::fromHost(Context& ctx, const std::vector<float>& values, Shape shape, DType dtype) {
  assert(static_cast<std::int64_t>(values.size()) == numelOf(shape) && "value count != shape");
  Tensor staging = empty(ctx, shape, DType::kFloat32);
  REFMODEL_CUDA(cudaMemcpyAsync(staging.data(), values.data(), values.size() * sizeof(float),
                                cudaMemcpyHostToDevice, ctx.stream()));
  REFMODEL_CUDA(cudaStreamSynchronize(ctx.stream()));
  return staging.to(ctx, dtype);
}

std::int64_t Tensor::numel() const { return numelOf(impl_->shape); }

void* Tensor::data() const {
  auto* base = static_cast<char*>(impl_->storage->data());
  if (base == nullptr) return nullptr;
  return base + impl_->offset * static_cast<std::int64_t>(elementSize(impl_->dtype));
}

Tensor Tensor::detach() const {
  auto impl = std::make_shared<TensorImpl>();
  impl->storage = impl_->storage;
  impl->offset = impl_->offset;
  impl->shape = impl_->shape;
  impl->dtype = impl_->dtype;
  return Tensor(std::move(impl));
}

Tensor Tensor::view(Shape shape) const {
  assert(numelOf(shape) == numel() && "view must keep the number of elements");
  Tensor out = detach();
  out.impl_->shape = std::move(shape);
  out.impl_->grad_fn = impl_->grad_fn;
  out.impl_->requires_grad = impl_->requires_grad;
  if (!impl_->grad_fn && impl_->requires_grad) {
    // a view of a leaf shares its gradient accumulator
    out.impl_->grad_accumulator = impl_->grad_accumulator;
  }
  return out;
}

Tensor Tensor::clone(Context& ctx) const { return to(ctx, dtype()); }

Tensor Tensor::to(Context& ctx, DType dtype) const {
  Tensor out = empty(ctx, shape(), dtype);
  if (dtype == this->dtype()) {
    REFMODEL_CUDA(cudaMemcpyAsync(out.data(), data(), nbytes(), cudaMemcpyDeviceToDevice,
                                  ctx.stream()));
  } else {
    kernels::convert(data(), this->dtype(), out.data(), dtype, numel(), ctx.stream());
  }
  return out;
}

void Tensor::pseudoFree(Context& ctx) {
  impl_->storage = std::make_shared<Storage>(ctx.allocator(), elementSize(dtype()), ctx.stream());
  impl_->offset = 0;
  impl_->shape = {1};
}

std::vector<float> Tensor::toHost(Context& ctx) const {
  Tensor fp32 = dtype() == DType::kFloat32 ? *this : to(ctx, DType::kFloat32);
  std::vector<float> out(static_cast<std::size_t>(numel()));
  REFMODEL_CUDA(cudaMemcpyAsync(out.data(), fp32.data(), out.size() * sizeof(float),
                                cudaMemcpyDeviceToHost, ctx.stream()));
  REFMODEL_CUDA(cudaStreamSynchronize(ctx.stream()));
  return out;
}

}  // namespace refmodel
