// Hyper-connection ops (mHC): stream mappings with Sinkhorn, aggregate, fused update, expand, contract.
#pragma once

#include "tensor.h"

namespace refmodel {

class Context;

constexpr int kSinkhornIterations = 20;
constexpr float kHcEps = 1e-6f;

struct HcParams {
  Tensor weight;  // [n*n + 2n, n*h], bias-free projection (activation dtype, product in fp32)
  Tensor alpha;   // [3] fp32 gains for pre, post, res
  Tensor beta;    // [n*n + 2n] fp32
};

// H = [H_pre (n) | H_post (n) | H_res (n*n)] per token, fp32 [tokens, n*n + 2n], from x: [tokens, n*h].
Tensor hcMapping(Context& ctx, const Tensor& x, const HcParams& params, int n,
                 int iterations = kSinkhornIterations);
// u = sum_i H_pre[i] * X[i]: [tokens, h].
Tensor hcAggregate(Context& ctx, const Tensor& x, const Tensor& h, int n);
// X'[i] = sum_j H_res[i, j] X[j] + H_post[i] (y + bias): [tokens, n*h].
Tensor hcUpdate(Context& ctx, const Tensor& x, const Tensor& h, const Tensor& y,
                const Tensor& bias, int n);
// Block entry (replicate the input into n streams) and exit (mean over the streams).
Tensor hcExpand(Context& ctx, const Tensor& x, int n);
Tensor hcContract(Context& ctx, const Tensor& x, int n);

}  // namespace refmodel
