// The model's parameters: leaves that require grad, each with a persistent fp32 main gradient.
#include "parameter_store.h"

#include <functional>

#include "context.h"
#include "cuda_check.h"

namespace refmodel {

Tensor ParameterStore::normal(const std::string& name, Shape shape, DType dtype, float stddev) {
  // seeded by name, so a parameter gets the same values whatever stage or order creates it
  const std::uint64_t seed = seed_ ^ std::hash<std::string>{}(name);
  return add(name, Tensor::normal(ctx_, std::move(shape), dtype, stddev, seed));
}

Tensor ParameterStore::constant(const std::string& name, Shape shape, DType dtype, float value) {
  return add(name, Tensor::full(ctx_, std::move(shape), dtype, value));
}

Tensor ParameterStore::add(const std::string& name, Tensor tensor) {
  tensor.setRequiresGrad(true);
  tensor.setGrad(Tensor::zeros(ctx_, tensor.shape(), DType::kFloat32));
  params_.push_back({name, tensor});
  return tensor;
}

void ParameterStore::zeroGrad() {
  for (const auto& p : params_) {
    Tensor g = p.tensor.grad();
    REFMODEL_CUDA(cudaMemsetAsync(g.data(), 0, g.nbytes(), ctx_.stream()));
  }
}

std::int64_t ParameterStore::numel() const {
  std::int64_t n = 0;
  for (const auto& p : params_) n += p.tensor.numel();
  return n;
}

}  // namespace refmodel
