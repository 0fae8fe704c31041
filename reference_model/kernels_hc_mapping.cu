// Hyper-connection mapping kernels: rms scale, H_pre/H_post/H_res (Sinkhorn) and their backward.
#include <cassert>

#include "kernels.h"
#include "kernels_common.cuh"

namespace refmodel::kernels {
namespace {

constexpr int kThreads = 256;
constexpr int kMapThreads = 128;
constexpr int kMaxIters = 24;
constexpr int kMaxMap = kMaxStreams * kMaxStreams + 2 * kMaxStreams;

__device__ __forceinline__ float sigmoid(float v) { return 1.f / (1.f + __expf(-v)); }

// alpha has three gains: 0 for H_pre, 1 for H_post, 2 for H_res.
__device__ __forceinline__ int gainIndex(int k, int n) { return k < n ? 0 : (k < 2 * n ? 1 : 2); }

template <typename T>
__global__ void rmsReciprocalKernel(const T* x, float* r, std::int64_t width, float eps) {
  const std::int64_t t = blockIdx.x;
  float sq = 0.f;
  for (std::int64_t c = threadIdx.x; c < width; c += blockDim.x) {
    const float v = toFloat(x[t * width + c]);
    sq += v * v;
  }
  sq = blockSum(sq);
  if (threadIdx.x == 0) r[t] = 1.f / (sqrtf(sq / static_cast<float>(width)) + eps);
}

// r = 1 / (rms + eps): dr/dx_k = -r^2 x_k / (width * rms).
template <typename T>
__global__ void rmsBackwardKernel(const T* x, const float* r, const float* dr, const float* dx_proj,
                                  T* dx, std::int64_t width, float eps) {
  const std::int64_t t = blockIdx.x;
  const float rt = r[t];
  const float rms = 1.f / rt - eps;
  const float coeff = rms > 0.f ? -dr[t] * rt * rt / (static_cast<float>(width) * rms) : 0.f;
  for (std::int64_t c = threadIdx.x; c < width; c += blockDim.x) {
    const std::int64_t i = t * width + c;
    dx[i] = fromFloat<T>(dx_proj[i] + coeff * toFloat(x[i]));
  }
}

__device__ void computeLogits(const float* proj, float r, const float* alpha, const float* beta,
                              int n, int m, float* logits) {
  for (int k = 0; k < m; ++k) logits[k] = r * proj[k] * alpha[gainIndex(k, n)] + beta[k];
}

// exp(l - rowmax) of the n x n residual logits: the Sinkhorn iterations start from it.
__device__ void sinkhornStart(const float* l, int n, float* out) {
  for (int i = 0; i < n; ++i) {
    float best = -INFINITY;
    for (int j = 0; j < n; ++j) best = fmaxf(best, l[i * n + j]);
    for (int j = 0; j < n; ++j) out[i * n + j] = __expf(l[i * n + j] - best);
  }
}

__global__ void mappingForwardKernel(const float* proj, const float* r, const float* alpha,
                                     const float* beta, float* h, std::int64_t tokens, int n,
                                     int iters) {
  const std::int64_t t = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  if (t >= tokens) return;
  const int m = n * n + 2 * n;
  float logits[kMaxMap];
  computeLogits(proj + t * m, r[t], alpha, beta, n, m, logits);
  float* out = h + t * m;
  for (int i = 0; i < n; ++i) {
    out[i] = sigmoid(logits[i]);
    out[n + i] = 2.f * sigmoid(logits[n + i]);
  }
  float mat[kMaxStreams * kMaxStreams];
  sinkhornStart(logits + 2 * n, n, mat);
  for (int it = 0; it < iters; ++it) {
    for (int i = 0; i < n; ++i) {
      float s = 0.f;
      for (int j = 0; j < n; ++j) s += mat[i * n + j];
      for (int j = 0; j < n; ++j) mat[i * n + j] /= s;
    }
    for (int j = 0; j < n; ++j) {
      float s = 0.f;
      for (int i = 0; i < n; ++i) s += mat[i * n + j];
      for (int i = 0; i < n; ++i) mat[i * n + j] /= s;
    }
  }
  for (int k = 0; k < n * n; ++k) out[2 * n + k] = mat[k];
}

// Re-runs the Sinkhorn iterations keeping every step, then walks them backwards.
__global__ void mappingBackwardKernel(const float* proj, const float* r, const float* alpha,
                                      const float* beta, const float* dh, float* dproj, float* dr,
                                      float* dalpha_rows, float* dlogits_rows,
                                      std::int64_t tokens, int n, int iters) {
  const std::int64_t t = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  if (t >= tokens) return;
  const int m = n * n + 2 * n;
  const int nn = n * n;
  float logits[kMaxMap];
  computeLogits(proj + t * m, r[t], alpha, beta, n, m, logits);
  const float* g = dh + t * m;
  float dl[kMaxMap];
  for (int i = 0; i < n; ++i) {
    const float sp = sigmoid(logits[i]);
    dl[i] = g[i] * sp * (1.f - sp);
    const float so = sigmoid(logits[n + i]);
    dl[n + i] = g[n + i] * 2.f * so * (1.f - so);
  }
  // history: exp matrix, then per iteration the row-normalised and column-normalised matrices
  float start[kMaxStreams * kMaxStreams];
  float rows[kMaxIters][kMaxStreams * kMaxStreams];
  float cols[kMaxIters][kMaxStreams * kMaxStreams];
  float row_sums[kMaxIters][kMaxStreams];
  float col_sums[kMaxIters][kMaxStreams];
  sinkhornStart(logits + 2 * n, n, start);
  for (int it = 0; it < iters; ++it) {
    const float* in = it == 0 ? start : cols[it - 1];
    for (int i = 0; i < n; ++i) {
      float s = 0.f;
      for (int j = 0; j < n; ++j) s += in[i * n + j];
      row_sums[it][i] = s;
      for (int j = 0; j < n; ++j) rows[it][i * n + j] = in[i * n + j] / s;
    }
    for (int j = 0; j < n; ++j) {
      float s = 0.f;
      for (int i = 0; i < n; ++i) s += rows[it][i * n + j];
      col_sums[it][j] = s;
      for (int i = 0; i < n; ++i) cols[it][i * n + j] = rows[it][i * n + j] / s;
    }
  }
  float grad[kMaxStreams * kMaxStreams];
  for (int k = 0; k < nn; ++k) grad[k] = g[2 * n + k];
  for (int it = iters - 1; it >= 0; --it) {
    for (int j = 0; j < n; ++j) {  // y = x / colsum: dx = (dy - sum_i dy y) / colsum
      float dot = 0.f;
      for (int i = 0; i < n; ++i) dot += grad[i * n + j] * cols[it][i * n + j];
      for (int i = 0; i < n; ++i) grad[i * n + j] = (grad[i * n + j] - dot) / col_sums[it][j];
    }
    for (int i = 0; i < n; ++i) {
      float dot = 0.f;
      for (int j = 0; j < n; ++j) dot += grad[i * n + j] * rows[it][i * n + j];
      for (int j = 0; j < n; ++j) grad[i * n + j] = (grad[i * n + j] - dot) / row_sums[it][i];
    }
  }
  // exp(l - rowmax): the row shift is undone by the first row normalisation, so it has no gradient
  for (int k = 0; k < nn; ++k) dl[2 * n + k] = grad[k] * start[k];

  const float rt = r[t];
  float dr_acc = 0.f;
  float da[3] = {0.f, 0.f, 0.f};
  for (int k = 0; k < m; ++k) {
    const int gi = gainIndex(k, n);
    const float p = proj[t * m + k];
    dlogits_rows[t * m + k] = dl[k];
    dproj[t * m + k] = dl[k] * rt * alpha[gi];
    dr_acc += dl[k] * p * alpha[gi];
    da[gi] += dl[k] * rt * p;
  }
  dr[t] = dr_acc;
  for (int k = 0; k < 3; ++k) dalpha_rows[t * 3 + k] = da[k];
}

}  // namespace

void hcRmsReciprocal(const void* x, DType dtype, float* r, std::int64_t tokens, std::int64_t width,
                     float eps, cudaStream_t stream) {
  if (tokens == 0) return;
  REFMODEL_DISPATCH(dtype, rmsReciprocalKernel<T><<<static_cast<unsigned>(tokens), kThreads, 0,
                                                    stream>>>(static_cast<const T*>(x), r, width,
                                                              eps));
  checkLaunch("hcRmsReciprocal");
}

void hcMappingForward(const float* proj, const float* r, const float* alpha, const float* beta,
                      float* h, std::int64_t tokens, int n, int iters, cudaStream_t stream) {
  assert(n <= kMaxStreams && iters <= kMaxIters && "hyper-connection size out of range");
  if (tokens == 0) return;
  mappingForwardKernel<<<blocksFor(tokens, kMapThreads), kMapThreads, 0, stream>>>(
      proj, r, alpha, beta, h, tokens, n, iters);
  checkLaunch("hcMappingForward");
}

void hcMappingBackward(const float* proj, const float* r, const float* alpha, const float* beta,
                       const float* dh, float* dproj, float* dr, float* dalpha_rows,
                       float* dlogits_rows, std::int64_t tokens, int n, int iters,
                       cudaStream_t stream) {
  assert(n <= kMaxStreams && iters <= kMaxIters && "hyper-connection size out of range");
  if (tokens == 0) return;
  mappingBackwardKernel<<<blocksFor(tokens, kMapThreads), kMapThreads, 0, stream>>>(
      proj, r, alpha, beta, dh, dproj, dr, dalpha_rows, dlogits_rows, tokens, n, iters);
  checkLaunch("hcMappingBackward");
}

void hcRmsBackward(const void* x, DType dtype, const float* r, const float* dr,
                   const float* dx_proj, void* dx, std::int64_t tokens, std::int64_t width,
                   float eps, cudaStream_t stream) {
  if (tokens == 0) return;
  REFMODEL_DISPATCH(dtype, rmsBackwardKernel<T><<<static_cast<unsigned>(tokens), kThreads, 0,
                                                  stream>>>(static_cast<const T*>(x), r, dr,
                                                            dx_proj, static_cast<T*>(dx), width,
                                                            eps));
  checkLaunch("hcRmsBackward");
}

}  // namespace refmodel::kernels
