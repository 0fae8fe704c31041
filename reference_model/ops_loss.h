// Embedding lookup, per-token cross-entropy (fp32) and the mean loss, with autograd nodes.
#pragma once

#include "tensor.h"

namespace refmodel {

class Context;

// tokens: int32 [count]; table: [vocab, h]. Returns [count, h].
Tensor embedding(Context& ctx, const Tensor& tokens, const Tensor& table);
// logits: [count, vocab]; labels: int32 [count]. Returns the per-token loss, fp32 [count].
Tensor crossEntropy(Context& ctx, const Tensor& logits, const Tensor& labels);
// scale * sum(x) as fp32 [1] (scale = 1/count is the mean).
Tensor scaledSum(Context& ctx, const Tensor& x, float scale);

}  // namespace refmodel
