// Host-callable launchers of the model's own CUDA kernels (bodies in kernels_*.cu).
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "dtype.h"

// Pointers are device pointers; `dtype` names the element type of the activation buffers (fp32 or
// bf16, accumulation is always fp32). Every launcher queues work on `stream` and never synchronises.
namespace refmodel::kernels {

// --- misc (kernels_misc.cu) ---
void fillNormal(void* out, DType dtype, std::int64_t n, float stddev, std::uint64_t seed,
                cudaStream_t stream);
void fill(void* out, DType dtype, std::int64_t n, float value, cudaStream_t stream);
void convert(const void* in, DType in_dtype, void* out, DType out_dtype, std::int64_t n,
             cudaStream_t stream);
// out += alpha * in (elementwise, any float dtypes).
void addInto(void* out, DType out_dtype, const void* in, DType in_dtype, std::int64_t n,
             float alpha, cudaStream_t stream);
// out[c] = sum over rows of in[r, c], in a fixed order (deterministic).
void columnSum(const void* in, DType dtype, float* out, std::int64_t rows, std::int64_t cols,
               cudaStream_t stream);
// out[0] = scale * sum(in), deterministic.
void sumAll(const float* in, float* out, std::int64_t n, float scale, cudaStream_t stream);
// out[i] = scale * scalar[0].
void broadcastScalar(const float* scalar, float* out, std::int64_t n, float scale,
                     cudaStream_t stream);
void adamStep(float* master, void* param, DType dtype, float* m, float* v, const float* grad,
              std::int64_t n, float lr, float beta1, float beta2, float eps, int step,
              cudaStream_t stream);
// Synthetic task: each sequence counts from a random start in a random step (1..8) modulo vocab.
void makeBatch(std::int32_t* tokens, std::int32_t* labels, std::int64_t seq, std::int64_t batch,
               std::int64_t vocab, std::uint64_t seed, cudaStream_t stream);

// --- elementwise (kernels_elementwise.cu) ---
void geluForward(const void* x, void* y, DType dtype, std::int64_t n, cudaStream_t stream);
void geluBackward(const void* x, const void* dy, void* dx, DType dtype, std::int64_t n,
                  cudaStream_t stream);
// y[r, c] += bias[c]
void addBiasRows(void* y, const void* bias, DType dtype, std::int64_t rows, std::int64_t cols,
                 cudaStream_t stream);
// out = x + bias (per row) + residual (bias-dropout-add with dropout 0)
void biasResidualAdd(const void* x, const void* bias, const void* residual, void* out, DType dtype,
                     std::int64_t rows, std::int64_t cols, cudaStream_t stream);

// --- norm (kernels_norm.cu) ---
void rmsNormForward(const void* x, const void* weight, void* y, float* rstd, DType dtype,
                    std::int64_t rows, std::int64_t cols, float eps, cudaStream_t stream);
// dweight_rows[r, c] = dy * x * rstd (fp32), reduced by columnSum afterwards.
void rmsNormBackward(const void* x, const void* weight, const float* rstd, const void* dy,
                     void* dx, float* dweight_rows, DType dtype, std::int64_t rows,
                     std::int64_t cols, cudaStream_t stream);

// --- attention (kernels_attention.cu) ---
// rows = heads * seq rows of length seq; row i of each head sees columns 0..i.
void causalSoftmaxForward(const float* scores, void* probs, DType dtype, std::int64_t rows,
                          std::int64_t seq, cudaStream_t stream);
void causalSoftmaxBackward(const void* probs, const float* dprobs, void* dscores, DType dtype,
                           std::int64_t rows, std::int64_t seq, cudaStream_t stream);

// --- hyper connections (kernels_hc.cu); m = n*n + 2n mapping values per token ---
constexpr int kMaxStreams = 4;
void hcRmsReciprocal(const void* x, DType dtype, float* r, std::int64_t tokens, std::int64_t width,
                     float eps, cudaStream_t stream);
void hcMappingForward(const float* proj, const float* r, const float* alpha, const float* beta,
                      float* h, std::int64_t tokens, int n, int iters, cudaStream_t stream);
// dlogits_rows[t, :] (= dbeta per token), dalpha_rows[t, 0..2], dproj and dr per token.
void hcMappingBackward(const float* proj, const float* r, const float* alpha, const float* beta,
                       const float* dh, float* dproj, float* dr, float* dalpha_rows,
                       float* dlogits_rows, std::int64_t tokens, int n, int iters,
                       cudaStream_t stream);
// dx = dx_proj (fp32) + the rms term from dr; written in dtype.
void hcRmsBackward(const void* x, DType dtype, const float* r, const float* dr,
                   const float* dx_proj, void* dx, std::int64_t tokens, std::int64_t width,
                   float eps, cudaStream_t stream);
void hcAggregateForward(const void* x, const float* h, void* u, DType dtype, std::int64_t tokens,
                        int n, std::int64_t hidden, cudaStream_t stream);
void hcAggregateBackward(const void* x, const float* h, const void* du, void* dx, float* dh,
                         DType dtype, std::int64_t tokens, int n, std::int64_t hidden,
                         cudaStream_t stream);
void hcUpdateForward(const void* x, const float* h, const void* y, const void* bias, void* out,
                     DType dtype, std::int64_t tokens, int n, std::int64_t hidden,
                     cudaStream_t stream);
void hcUpdateBackward(const void* x, const float* h, const void* y, const void* bias,
                      const void* dout, void* dx, void* dy, float* dh, DType dtype,
                      std::int64_t tokens, int n, std::int64_t hidden, cudaStream_t stream);
// out = scale * sum over streams (scale 1/n is the mean contraction; 1 is expand's backward).
void hcReduceStreams(const void* x, void* out, DType dtype, std::int64_t tokens, int n,
                     std::int64_t hidden, float scale, cudaStream_t stream);
// out[t, i, :] = scale * x[t, :] for every stream i (the expansion; with 1/n the mean's backward).
void hcBroadcastStreams(const void* x, void* out, DType dtype, std::int64_t tokens, int n,
                        std::int64_t hidden, float scale, cudaStream_t stream);

// --- embedding and loss (kernels_loss.cu) ---
void embeddingForward(const std::int32_t* tokens, const void* table, void* out, DType dtype,
                      std::int64_t count, std::int64_t hidden, cudaStream_t stream);
// grad_table (fp32, zeroed by the caller) += rows of dout, deterministic order.
void embeddingBackward(const std::int32_t* tokens, const void* dout, float* grad_table,
                       DType dtype, std::int64_t count, std::int64_t hidden, cudaStream_t stream);
void crossEntropyForward(const void* logits, DType dtype, const std::int32_t* labels, float* loss,
                         float* lse, std::int64_t count, std::int64_t vocab, cudaStream_t stream);
void crossEntropyBackward(const void* logits, DType dtype, const std::int32_t* labels,
                          const float* lse, const float* dloss, void* dlogits, std::int64_t count,
                          std::int64_t vocab, cudaStream_t stream);

}  // namespace refmodel::kernels
