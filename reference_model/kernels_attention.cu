// Causal softmax kernels for attention: fp32 scores in, probabilities in the activation dtype.
#include "kernels.h"
#include "kernels_common.cuh"

namespace refmodel::kernels {
namespace {

constexpr int kThreads = 256;

template <typename T>
__global__ void causalSoftmaxForwardKernel(const float* scores, T* probs, std::int64_t seq) {
  const std::int64_t row = blockIdx.x;
  const std::int64_t i = row % seq;  // query position: keys 0..i are visible
  const float* sr = scores + row * seq;
  T* pr = probs + row * seq;
  float best = -INFINITY;
  for (std::int64_t j = threadIdx.x; j <= i; j += blockDim.x) best = fmaxf(best, sr[j]);
  best = blockMax(best);
  float sum = 0.f;
  for (std::int64_t j = threadIdx.x; j <= i; j += blockDim.x) sum += __expf(sr[j] - best);
  sum = blockSum(sum);
  const float inv = 1.f / sum;
  for (std::int64_t j = threadIdx.x; j < seq; j += blockDim.x) {
    pr[j] = fromFloat<T>(j <= i ? __expf(sr[j] - best) * inv : 0.f);
  }
}

// dS_j = P_j (dP_j - sum_k P_k dP_k); masked entries have P = 0 and get 0.
template <typename T>
__global__ void causalSoftmaxBackwardKernel(const T* probs, const float* dprobs, T* dscores,
                                            std::int64_t seq) {
  const std::int64_t row = blockIdx.x;
  const std::int64_t i = row % seq;
  const T* pr = probs + row * seq;
  const float* dpr = dprobs + row * seq;
  T* dsr = dscores + row * seq;
  float dot = 0.f;
  for (std::int64_t j = threadIdx.x; j <= i; j += blockDim.x) dot += toFloat(pr[j]) * dpr[j];
  dot = blockSum(dot);
  for (std::int64_t j = threadIdx.x; j < seq; j += blockDim.x) {
    dsr[j] = fromFloat<T>(j <= i ? toFloat(pr[j]) * (dpr[j] - dot) : 0.f);
  }
}

}  // namespace

void causalSoftmaxForward(const float* scores, void* probs, DType dtype, std::int64_t rows,
                          std::int64_t seq, cudaStream_t stream) {
  if (rows == 0) return;
  REFMODEL_DISPATCH(dtype, causalSoftmaxForwardKernel<T><<<static_cast<unsigned>(rows), kThreads,
                                                           0, stream>>>(
                               scores, static_cast<T*>(probs), seq));
  checkLaunch("causalSoftmaxForward");
}

void causalSoftmaxBackward(const void* probs, const float* dprobs, void* dscores, DType dtype,
                           std::int64_t rows, std::int64_t seq, cudaStream_t stream) {
  if (rows == 0) return;
  REFMODEL_DISPATCH(dtype, causalSoftmaxBackwardKernel<T><<<static_cast<unsigned>(rows),
                                                            kThreads, 0, stream>>>(
                               static_cast<const T*>(probs), dprobs, static_cast<T*>(dscores),
                               seq));
  checkLaunch("causalSoftmaxBackward");
}

}  // namespace refmodel::kernels
