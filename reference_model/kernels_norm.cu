// RMSNorm kernels: one block per row, fp32 statistics, weight gradient per row for a later reduction.
#include "kernels.h"
#include "kernels_common.cuh"

namespace refmodel::kernels {
namespace {

constexpr int kThreads = 256;

template <typename T>
__global__ void rmsNormForwardKernel(const T* x, const T* weight, T* y, float* rstd,
                                     std::int64_t cols, float eps) {
  const std::int64_t row = blockIdx.x;
  const T* xr = x + row * cols;
  float sq = 0.f;
  for (std::int64_t c = threadIdx.x; c < cols; c += blockDim.x) {
    const float v = toFloat(xr[c]);
    sq += v * v;
  }
  sq = blockSum(sq);
  const float r = rsqrtf(sq / static_cast<float>(cols) + eps);
  if (threadIdx.x == 0) rstd[row] = r;
  T* yr = y + row * cols;
  for (std::int64_t c = threadIdx.x; c < cols; c += blockDim.x) {
    yr[c] = fromFloat<T>(toFloat(xr[c]) * r * toFloat(weight[c]));
  }
}

// y = x r w, r = (mean(x^2) + eps)^-1/2:
// dx_k = r (w_k dy_k - x_k r^2 mean_i(dy_i w_i x_i)); dw_k += dy_k x_k r.
template <typename T>
__global__ void rmsNormBackwardKernel(const T* x, const T* weight, const float* rstd, const T* dy,
                                      T* dx, float* dweight_rows, std::int64_t cols) {
  const std::int64_t row = blockIdx.x;
  const T* xr = x + row * cols;
  const T* dyr = dy + row * cols;
  const float r = rstd[row];
  float dot = 0.f;
  for (std::int64_t c = threadIdx.x; c < cols; c += blockDim.x) {
    dot += toFloat(dyr[c]) * toFloat(weight[c]) * toFloat(xr[c]);
  }
  dot = blockSum(dot) / static_cast<float>(cols);
  T* dxr = dx + row * cols;
  float* dwr = dweight_rows + row * cols;
  for (std::int64_t c = threadIdx.x; c < cols; c += blockDim.x) {
    const float xv = toFloat(xr[c]);
    const float g = toFloat(dyr[c]);
    dxr[c] = fromFloat<T>(r * (toFloat(weight[c]) * g - xv * r * r * dot));
    dwr[c] = g * xv * r;
  }
}

}  // namespace

void rmsNormForward(const void* x, const void* weight, void* y, float* rstd, DType dtype,
                    std::int64_t rows, std::int64_t cols, float eps, cudaStream_t stream) {
  if (rows == 0) return;
  REFMODEL_DISPATCH(dtype, rmsNormForwardKernel<T><<<static_cast<unsigned>(rows), kThreads, 0,
                                                     stream>>>(
                               static_cast<const T*>(x), static_cast<const T*>(weight),
                               static_cast<T*>(y), rstd, cols, eps));
  checkLaunch("rmsNormForward");
}

void rmsNormBackward(const void* x, const void* weight, const float* rstd, const void* dy,
                     void* dx, float* dweight_rows, DType dtype, std::int64_t rows,
                     std::int64_t cols, cudaStream_t stream) {
  if (rows == 0) return;
  REFMODEL_DISPATCH(dtype, rmsNormBackwardKernel<T><<<static_cast<unsigned>(rows), kThreads, 0,
                                                      stream>>>(
                               static_cast<const T*>(x), static_cast<const T*>(weight), rstd,
                               static_cast<const T*>(dy), static_cast<T*>(dx), dweight_rows,
                               cols));
  checkLaunch("rmsNormBackward");
}

}  // namespace refmodel::kernels
