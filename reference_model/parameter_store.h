// The model's parameters: leaves that require grad, each with a persistent fp32 main gradient.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tensor.h"

namespace refmodel {

class Context;

struct NamedParameter {
  std::string name;
  Tensor tensor;  // leaf, requires grad; tensor.grad() is the fp32 main gradient
};

// Like Megatron's main_grad buffers, the gradients are allocated once at construction (persistent
// memory, allocated before the first iteration) and zeroed in place before every iteration.
class ParameterStore {
 public:
  ParameterStore(Context& ctx, std::uint64_t seed) : ctx_(ctx), seed_(seed) {}

  Tensor normal(const std::string& name, Shape shape, DType dtype, float stddev);
  Tensor constant(const std::string& name, Shape shape, DType dtype, float value);

  const std::vector<NamedParameter>& parameters() const { return params_; }
  void zeroGrad();
  std::int64_t numel() const;

 private:
  Tensor add(const std::string& name, Tensor tensor);

  Context& ctx_;
  std::uint64_t seed_;
  std::vector<NamedParameter> params_;
};

}  // namespace refmodel
