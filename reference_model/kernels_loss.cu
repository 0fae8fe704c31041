// Embedding lookup and cross-entropy kernels (per-token fp32 loss, as the loss node's input).
#include "kernels.h"
#include "kernels_common.cuh"

namespace refmodel::kernels {
namespace {

constexpr int kThreads = 256;

template <typename T>
__global__ void embeddingForwardKernel(const std::int32_t* tokens, const T* table, T* out,
                                       std::int64_t count, std::int64_t hidden) {
  const std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  if (i >= count * hidden) return;
  const std::int64_t t = i / hidden;
  out[i] = table[static_cast<std::int64_t>(tokens[t]) * hidden + i % hidden];
}

// One thread per hidden column walks the tokens in order: no atomics, the same bits every run.
template <typename T>
__global__ void embeddingBackwardKernel(const std::int32_t* tokens, const T* dout,
                                        float* grad_table, std::int64_t count,
                                        std::int64_t hidden) {
  const std::int64_t c = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  if (c >= hidden) return;
  for (std::int64_t t = 0; t < count; ++t) {
    grad_table[static_cast<std::int64_t>(tokens[t]) * hidden + c] += toFloat(dout[t * hidden + c]);
  }
}

template <typename T>
__global__ void crossEntropyForwardKernel(const T* logits, const std::int32_t* labels, float* loss,
                                          float* lse, std::int64_t vocab) {
  const std::int64_t t = blockIdx.x;
  const T* row = logits + t * vocab;
  float best = -INFINITY;
  for (std::int64_t j = threadIdx.x; j < vocab; j += blockDim.x) best = fmaxf(best, toFloat(row[j]));
  best = blockMax(best);
  float sum = 0.f;
  for (std::int64_t j = threadIdx.x; j < vocab; j += blockDim.x) sum += expf(toFloat(row[j]) - best);
  sum = blockSum(sum);
  if (threadIdx.x == 0) {
    const float l = best + logf(sum);
    lse[t] = l;
    loss[t] = l - toFloat(row[labels[t]]);
  }
}

template <typename T>
__global__ void crossEntropyBackwardKernel(const T* logits, const std::int32_t* labels,
                                           const float* lse, const float* dloss, T* dlogits,
                                           std::int64_t vocab) {
  const std::int64_t t = blockIdx.x;
  const float l = lse[t];
  const float g = dloss[t];
  const std::int64_t label = labels[t];
  for (std::int64_t j = threadIdx.x; j < vocab; j += blockDim.x) {
    const float p = expf(toFloat(logits[t * vocab + j]) - l);
    dlogits[t * vocab + j] = fromFloat<T>(g * (p - (j == label ? 1.f : 0.f)));
  }
}

}  // namespace

void embeddingForward(const std::int32_t* tokens, const void* table, void* out, DType dtype,
                      std::int64_t count, std::int64_t hidden, cudaStream_t stream) {
  if (count == 0) return;
  REFMODEL_DISPATCH(dtype, embeddingForwardKernel<T><<<blocksFor(count * hidden, kThreads),
                                                       kThreads, 0, stream>>>(
                               tokens, static_cast<const T*>(table), static_cast<T*>(out), count,
                               hidden));
  checkLaunch("embeddingForward");
}

void embeddingBackward(const std::int32_t* tokens, const void* dout, float* grad_table,
                       DType dtype, std::int64_t count, std::int64_t hidden, cudaStream_t stream) {
  if (count == 0) return;
  constexpr int kColumnThreads = 64;
  REFMODEL_DISPATCH(dtype, embeddingBackwardKernel<T><<<blocksFor(hidden, kColumnThreads),
                                                        kColumnThreads, 0, stream>>>(
                               tokens, static_cast<const T*>(dout), grad_table, count, hidden));
  checkLaunch("embeddingBackward");
}

void crossEntropyForward(const void* logits, DType dtype, const std::int32_t* labels, float* loss,
                         float* lse, std::int64_t count, std::int64_t vocab, cudaStream_t stream) {
  if (count == 0) return;
  REFMODEL_DISPATCH(dtype, crossEntropyForwardKernel<T><<<static_cast<unsigned>(count), kThreads,
                                                          0, stream>>>(
                               static_cast<const T*>(logits), labels, loss, lse, vocab));
  checkLaunch("crossEntropyForward");
}

void crossEntropyBackward(const void* logits, DType dtype, const std::int32_t* labels,
                          const float* lse, const float* dloss, void* dlogits, std::int64_t count,
                          std::int64_t vocab, cudaStream_t stream) {
  if (count == 0) return;
  REFMODEL_DISPATCH(dtype, crossEntropyBackwardKernel<T><<<static_cast<unsigned>(count), kThreads,
                                                           0, stream>>>(
                               static_cast<const T*>(logits), labels, lse, dloss,
                               static_cast<T*>(dlogits), vocab));
  checkLaunch("crossEntropyBackward");
}

}  // namespace refmodel::kernels
