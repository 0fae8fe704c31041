// Adam with fp32 master weights and moments (persistent state), updating the bf16/fp32 parameters.
#pragma once

#include <vector>

#include "tensor.h"

namespace refmodel {

class Context;
class ParameterStore;

struct AdamOptions {
  float lr = 1e-3f;
  float beta1 = 0.9f;
  float beta2 = 0.95f;
  float eps = 1e-8f;
};

class AdamOptimizer {
 public:
  AdamOptimizer(Context& ctx, const ParameterStore& params, AdamOptions options);
  void step(Context& ctx);

 private:
  struct State {
    Tensor param;
    Tensor master;
    Tensor m;
    Tensor v;
  };
  std::vector<State> states_;
  AdamOptions options_;
  int step_ = 0;
};

}  // namespace refmodel
