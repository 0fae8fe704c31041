// Elementwise ops with autograd nodes: GELU and bias-dropout-add (dropout probability 0).
#pragma once

#include "tensor.h"

namespace refmodel {

class Context;

Tensor gelu(Context& ctx, const Tensor& x);
// x + bias (per row) + residual; bias may be undefined. Dropout is omitted (p = 0).
Tensor biasDropoutAdd(Context& ctx, const Tensor& x, const Tensor& bias, const Tensor& residual);

}  // namespace refmodel
