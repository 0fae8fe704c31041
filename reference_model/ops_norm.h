// RMSNorm op with a learnable weight, and its autograd node.
#pragma once

#include "tensor.h"

namespace refmodel {

class Context;

constexpr float kNormEps = 1e-5f;

// x: [rows, cols], weight: [cols].
Tensor rmsNorm(Context& ctx, const Tensor& x, const Tensor& weight, float eps = kNormEps);

}  // namespace refmodel
