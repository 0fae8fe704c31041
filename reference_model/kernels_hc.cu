// Hyper-connection stream kernels: aggregate, fused update, expand and contract of the n streams.
#include "kernels.h"
#include "kernels_common.cuh"

namespace refmodel::kernels {
namespace {

constexpr int kThreads = 256;

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
