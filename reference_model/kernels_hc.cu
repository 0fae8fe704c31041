// Hyper-connection kernels: rms scale, mappings H_pre/H_post/H_res (Sinkhorn), aggregate, fused update.
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
  const float* l = logits + 2 * n;
  for (int i = 0; i < n; ++i) {
    float best = -INFINITY;
    for (int j = 0; j < n; ++j) best = fmaxf(best, l[i * n + j]);
    for (int j = 0; j < n; ++j) mat[i * n + j] = __expf(l[i * n + j] - best);
  }
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
  const float* l = logits + 2 * n;
  for (int i = 0; i < n; ++i) {
    float best = -INFINITY;
    for (int j = 0; j < n; ++j) best = fmaxf(best, l[i * n + j]);
    for (int j = 0; j < n; ++j) start[i * n + j] = __expf(l[i * n + j] - best);
  }
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

template <typename T>
__global__ void aggregateForwardKernel(const T* x, const float* h, T* u, int n,
                                       std::int64_t hidden) {
  const std::int64_t t = blockIdx.x;
  const int m = n * n + 2 * n;
  const float* ht = h + t * m;
  for (std::int64_t c = threadIdx.x; c < hidden; c += blockDim.x) {
    float acc = 0.f;
    for (int i = 0; i < n; ++i) acc += ht[i] * toFloat(x[(t * n + i) * hidden + c]);
    u[t * hidden + c] = fromFloat<T>(acc);
  }
}

template <typename T>
__global__ void aggregateBackwardKernel(const T* x, const float* h, const T* du, T* dx, float* dh,
                                        int n, std::int64_t hidden) {
  const std::int64_t t = blockIdx.x;
  const int m = n * n + 2 * n;
  const float* ht = h + t * m;
  float partial[kMaxStreams] = {};
  for (std::int64_t c = threadIdx.x; c < hidden; c += blockDim.x) {
    const float g = toFloat(du[t * hidden + c]);
    for (int i = 0; i < n; ++i) {
      const std::int64_t idx = (t * n + i) * hidden + c;
      partial[i] += g * toFloat(x[idx]);
      dx[idx] = fromFloat<T>(ht[i] * g);
    }
  }
  for (int i = 0; i < n; ++i) {
    const float total = blockSum(partial[i]);
    if (threadIdx.x == 0) dh[t * m + i] = total;
  }
  for (int k = n + static_cast<int>(threadIdx.x); k < m; k += blockDim.x) dh[t * m + k] = 0.f;
}

template <typename T>
__global__ void updateForwardKernel(const T* x, const float* h, const T* y, const T* bias, T* out,
                                    int n, std::int64_t hidden) {
  const std::int64_t t = blockIdx.x;
  const int m = n * n + 2 * n;
  const float* ht = h + t * m;
  for (std::int64_t c = threadIdx.x; c < hidden; c += blockDim.x) {
    const float yb = toFloat(y[t * hidden + c]) + (bias != nullptr ? toFloat(bias[c]) : 0.f);
    float xs[kMaxStreams];
    for (int j = 0; j < n; ++j) xs[j] = toFloat(x[(t * n + j) * hidden + c]);
    for (int i = 0; i < n; ++i) {
      float acc = ht[n + i] * yb;
      for (int j = 0; j < n; ++j) acc += ht[2 * n + i * n + j] * xs[j];
      out[(t * n + i) * hidden + c] = fromFloat<T>(acc);
    }
  }
}

template <typename T>
__global__ void updateBackwardKernel(const T* x, const float* h, const T* y, const T* bias,
                                     const T* dout, T* dx, T* dy, float* dh, int n,
                                     std::int64_t hidden) {
  const std::int64_t t = blockIdx.x;
  const int m = n * n + 2 * n;
  const float* ht = h + t * m;
  float dpost[kMaxStreams] = {};
  float dres[kMaxStreams * kMaxStreams] = {};
  for (std::int64_t c = threadIdx.x; c < hidden; c += blockDim.x) {
    const float yb = toFloat(y[t * hidden + c]) + (bias != nullptr ? toFloat(bias[c]) : 0.f);
    float g[kMaxStreams];
    float xs[kMaxStreams];
    for (int i = 0; i < n; ++i) {
      g[i] = toFloat(dout[(t * n + i) * hidden + c]);
      xs[i] = toFloat(x[(t * n + i) * hidden + c]);
    }
    float dyc = 0.f;
    for (int i = 0; i < n; ++i) {
      dyc += ht[n + i] * g[i];
      dpost[i] += g[i] * yb;
      for (int j = 0; j < n; ++j) dres[i * n + j] += g[i] * xs[j];
    }
    dy[t * hidden + c] = fromFloat<T>(dyc);
    for (int j = 0; j < n; ++j) {
      float acc = 0.f;
      for (int i = 0; i < n; ++i) acc += ht[2 * n + i * n + j] * g[i];
      dx[(t * n + j) * hidden + c] = fromFloat<T>(acc);
    }
  }
  for (int i = 0; i < n; ++i) {
    const float total = blockSum(dpost[i]);
    if (threadIdx.x == 0) dh[t * m + n + i] = total;
  }
  for (int k = 0; k < n * n; ++k) {
    const float total = blockSum(dres[k]);
    if (threadIdx.x == 0) dh[t * m + 2 * n + k] = total;
  }
  if (threadIdx.x == 0) {
    for (int i = 0; i < n; ++i) dh[t * m + i] = 0.f;
  }
}

template <typename T>
__global__ void reduceStreamsKernel(const T* x, T* out, std::int64_t tokens, int n,
                                    std::int64_t hidden, float scale) {
  const std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  if (i >= tokens * hidden) return;
  const std::int64_t t = i / hidden;
  const std::int64_t c = i % hidden;
  float acc = 0.f;
  for (int s = 0; s < n; ++s) acc += toFloat(x[(t * n + s) * hidden + c]);
  out[i] = fromFloat<T>(scale * acc);
}

template <typename T>
__global__ void broadcastStreamsKernel(const T* x, T* out, std::int64_t tokens, int n,
                                       std::int64_t hidden, float scale) {
  const std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  if (i >= tokens * n * hidden) return;
  const std::int64_t t = i / (n * hidden);
  const std::int64_t c = i % hidden;
  out[i] = fromFloat<T>(scale * toFloat(x[t * hidden + c]));
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

void hcAggregateForward(const void* x, const float* h, void* u, DType dtype, std::int64_t tokens,
                        int n, std::int64_t hidden, cudaStream_t stream) {
  if (tokens == 0) return;
  REFMODEL_DISPATCH(dtype, aggregateForwardKernel<T><<<static_cast<unsigned>(tokens), kThreads, 0,
                                                       stream>>>(
                               static_cast<const T*>(x), h, static_cast<T*>(u), n, hidden));
  checkLaunch("hcAggregateForward");
}

void hcAggregateBackward(const void* x, const float* h, const void* du, void* dx, float* dh,
                         DType dtype, std::int64_t tokens, int n, std::int64_t hidden,
                         cudaStream_t stream) {
  if (tokens == 0) return;
  REFMODEL_DISPATCH(dtype, aggregateBackwardKernel<T><<<static_cast<unsigned>(tokens), kThreads,
                                                        0, stream>>>(
                               static_cast<const T*>(x), h, static_cast<const T*>(du),
                               static_cast<T*>(dx), dh, n, hidden));
  checkLaunch("hcAggregateBackward");
}

void hcUpdateForward(const void* x, const float* h, const void* y, const void* bias, void* out,
                     DType dtype, std::int64_t tokens, int n, std::int64_t hidden,
                     cudaStream_t stream) {
  if (tokens == 0) return;
  REFMODEL_DISPATCH(dtype, updateForwardKernel<T><<<static_cast<unsigned>(tokens), kThreads, 0,
                                                    stream>>>(
                               static_cast<const T*>(x), h, static_cast<const T*>(y),
                               static_cast<const T*>(bias), static_cast<T*>(out), n, hidden));
  checkLaunch("hcUpdateForward");
}

void hcUpdateBackward(const void* x, const float* h, const void* y, const void* bias,
                      const void* dout, void* dx, void* dy, float* dh, DType dtype,
                      std::int64_t tokens, int n, std::int64_t hidden, cudaStream_t stream) {
  if (tokens == 0) return;
  REFMODEL_DISPATCH(dtype, updateBackwardKernel<T><<<static_cast<unsigned>(tokens), kThreads, 0,
                                                     stream>>>(
                               static_cast<const T*>(x), h, static_cast<const T*>(y),
                               static_cast<const T*>(bias), static_cast<const T*>(dout),
                               static_cast<T*>(dx), static_cast<T*>(dy), dh, n, hidden));
  checkLaunch("hcUpdateBackward");
}

void hcReduceStreams(const void* x, void* out, DType dtype, std::int64_t tokens, int n,
                     std::int64_t hidden, float scale, cudaStream_t stream) {
  if (tokens == 0) return;
  REFMODEL_DISPATCH(dtype, reduceStreamsKernel<T><<<blocksFor(tokens * hidden, kThreads), kThreads,
                                                    0, stream>>>(
                               static_cast<const T*>(x), static_cast<T*>(out), tokens, n, hidden,
                               scale));
  checkLaunch("hcReduceStreams");
}

void hcBroadcastStreams(const void* x, void* out, DType dtype, std::int64_t tokens, int n,
                        std::int64_t hidden, float scale, cudaStream_t stream) {
  if (tokens == 0) return;
  REFMODEL_DISPATCH(dtype, broadcastStreamsKernel<T><<<blocksFor(tokens * n * hidden, kThreads),
                                                       kThreads, 0, stream>>>(
                               static_cast<const T*>(x), static_cast<T*>(out), tokens, n, hidden,
                               scale));
  checkLaunch("hcBroadcastStreams");
}

}  // namespace refmodel::kernels
