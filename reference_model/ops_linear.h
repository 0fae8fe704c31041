// Linear layer op (y = x W^T + b) on cuBLAS, with its autograd node.
#pragma once

#include "tensor.h"

namespace refmodel {

class Context;

// x: [rows, in], weight: [out, in], bias: [out] or undefined. Returns [rows, out] in x's dtype.
// With fp32_output the product is returned in fp32 (the hyper-connection projection).
Tensor linear(Context& ctx, const Tensor& x, const Tensor& weight, const Tensor& bias,
              bool fp32_output = false);

}  // namespace refmodel
