// Adam with fp32 master weights and moments (persistent state), updating the bf16/fp32 parameters.
#include "optimizer.h"

#include "context.h"
#include "kernels.h"
#include "parameter_store.h"

namespace refmodel {

AdamOptimizer::AdamOptimizer(Context& ctx, const ParameterStore& params, AdamOptions options)
    : options_(options) {
  for (const auto& p : params.parameters()) {
    states_.push_back({p.tensor, p.tensor.to(ctx, DType::kFloat32),
                       Tensor::zeros(ctx, p.tensor.shape(), DType::kFloat32),
                       Tensor::zeros(ctx, p.tensor.shape(), DType::kFloat32)});
  }
}

void AdamOptimizer::step(Context& ctx) {
  ++step_;
  for (auto& s : states_) {
    kernels::adamStep(s.master.dataAs<float>(), s.param.data(), s.param.dtype(), s.m.dataAs<float>(),
                      s.v.dataAs<float>(), s.param.grad().dataAs<float>(), s.param.numel(),
                      options_.lr, options_.beta1, options_.beta2, options_.eps, step_,
                      ctx.stream());
  }
}

}  // namespace refmodel
