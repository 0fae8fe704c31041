// Elementwise kernels: GELU (tanh form), bias rows, bias-dropout-add with dropout 0.
#include "kernels.h"
#include "kernels_common.cuh"

namespace refmodel::kernels {
namespace {

constexpr int kThreads = 256;
constexpr float kSqrt2OverPi = 0.7978845608028654f;
constexpr float kGeluCoeff = 0.044715f;

template <typename T>
__global__ void geluForwardKernel(const T* x, T* y, std::int64_t n) {
  const std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  if (i >= n) return;
  const float v = toFloat(x[i]);
  const float inner = kSqrt2OverPi * (v + kGeluCoeff * v * v * v);
  y[i] = fromFloat<T>(0.5f * v * (1.f + tanhf(inner)));
}

template <typename T>
__global__ void geluBackwardKernel(const T* x, const T* dy, T* dx, std::int64_t n) {
  const std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  if (i >= n) return;
  const float v = toFloat(x[i]);
  const float inner = kSqrt2OverPi * (v + kGeluCoeff * v * v * v);
  const float t = tanhf(inner);
  const float dinner = kSqrt2OverPi * (1.f + 3.f * kGeluCoeff * v * v);
  const float grad = 0.5f * (1.f + t) + 0.5f * v * (1.f - t * t) * dinner;
  dx[i] = fromFloat<T>(toFloat(dy[i]) * grad);
}

template <typename T>
__global__ void addBiasRowsKernel(T* y, const T* bias, std::int64_t rows, std::int64_t cols) {
  const std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  if (i >= rows * cols) return;
  y[i] = fromFloat<T>(toFloat(y[i]) + toFloat(bias[i % cols]));
}

template <typename T>
__global__ void biasResidualAddKernel(const T* x, const T* bias, const T* residual, T* out,
                                      std::int64_t rows, std::int64_t cols) {
  const std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  if (i >= rows * cols) return;
  const float b = bias != nullptr ? toFloat(bias[i % cols]) : 0.f;
  out[i] = fromFloat<T>(toFloat(x[i]) + b + toFloat(residual[i]));
}

}  // namespace

void geluForward(const void* x, void* y, DType dtype, std::int64_t n, cudaStream_t stream) {
  if (n == 0) return;
  REFMODEL_DISPATCH(dtype, geluForwardKernel<T><<<blocksFor(n, kThreads), kThreads, 0, stream>>>(
                               static_cast<const T*>(x), static_cast<T*>(y), n));
  checkLaunch("geluForward");
}

void geluBackward(const void* x, const void* dy, void* dx, DType dtype, std::int64_t n,
                  cudaStream_t stream) {
  if (n == 0) return;
  REFMODEL_DISPATCH(dtype, geluBackwardKernel<T><<<blocksFor(n, kThreads), kThreads, 0, stream>>>(
                               static_cast<const T*>(x), static_cast<const T*>(dy),
                               static_cast<T*>(dx), n));
  checkLaunch("geluBackward");
}

void addBiasRows(void* y, const void* bias, DType dtype, std::int64_t rows, std::int64_t cols,
                 cudaStream_t stream) {
  if (rows * cols == 0) return;
  REFMODEL_DISPATCH(dtype,
                    addBiasRowsKernel<T><<<blocksFor(rows * cols, kThreads), kThreads, 0, stream>>>(
                        static_cast<T*>(y), static_cast<const T*>(bias), rows, cols));
  checkLaunch("addBiasRows");
}

void biasResidualAdd(const void* x, const void* bias, const void* residual, void* out, DType dtype,
                     std::int64_t rows, std::int64_t cols, cudaStream_t stream) {
  if (rows * cols == 0) return;
  REFMODEL_DISPATCH(
      dtype, biasResidualAddKernel<T><<<blocksFor(rows * cols, kThreads), kThreads, 0, stream>>>(
                 static_cast<const T*>(x), static_cast<const T*>(bias),
                 static_cast<const T*>(residual), static_cast<T*>(out), rows, cols));
  checkLaunch("biasResidualAdd");
}

}  // namespace refmodel::kernels
