// Causal multi-head self-attention op on a fused QKV tensor (cuBLAS products + own softmax).
#pragma once

#include <cstdint>

#include "tensor.h"

namespace refmodel {

class Context;

struct AttentionShape {
  std::int64_t seq;
  std::int64_t batch;
  std::int64_t heads;
};

// qkv: [seq * batch, 3 * hidden] with rows ordered [s, b] and columns [q | k | v], each split
// into heads. Returns [seq * batch, hidden].
Tensor causalAttention(Context& ctx, const Tensor& qkv, const AttentionShape& shape);

}  // namespace refmodel
