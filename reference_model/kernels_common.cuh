// Device helpers shared by the kernel files: bf16/fp32 conversion, dtype dispatch, block reductions.
#pragma once

#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cstdint>

#include "cuda_check.h"
#include "dtype.h"

namespace refmodel::kernels {

__device__ __forceinline__ float toFloat(float v) { return v; }
__device__ __forceinline__ float toFloat(__nv_bfloat16 v) { return __bfloat162float(v); }

template <typename T>
__device__ __forceinline__ T fromFloat(float v);
template <>
__device__ __forceinline__ float fromFloat<float>(float v) { return v; }
template <>
__device__ __forceinline__ __nv_bfloat16 fromFloat<__nv_bfloat16>(float v) {
  return __float2bfloat16(v);
}

// Sum over the block; every thread gets the result. blockDim.x must be a multiple of 32, <= 1024.
__device__ __forceinline__ float blockSum(float v) {
  __shared__ float partial[32];
  __syncthreads();  // the buffer may still be read by a previous call
  for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_xor_sync(0xffffffffu, v, offset);
  const int lane = threadIdx.x & 31;
  const int warp = threadIdx.x >> 5;
  if (lane == 0) partial[warp] = v;
  __syncthreads();
  const int warps = (blockDim.x + 31) >> 5;
  float total = 0.f;
  for (int w = 0; w < warps; ++w) total += partial[w];
  return total;
}

__device__ __forceinline__ float blockMax(float v) {
  __shared__ float partial[32];
  __syncthreads();
  for (int offset = 16; offset > 0; offset >>= 1) {
    v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, offset));
  }
  const int lane = threadIdx.x & 31;
  const int warp = threadIdx.x >> 5;
  if (lane == 0) partial[warp] = v;
  __syncthreads();
  const int warps = (blockDim.x + 31) >> 5;
  float best = -INFINITY;
  for (int w = 0; w < warps; ++w) best = fmaxf(best, partial[w]);
  return best;
}

inline unsigned blocksFor(std::int64_t n, int threads) {
  return static_cast<unsigned>((n + threads - 1) / threads);
}

inline void checkLaunch(const char* name) {
  ::refmodel::checkCuda(cudaGetLastError(), name, __FILE__, __LINE__);
}

}  // namespace refmodel::kernels

// Runs the statement with T bound to the C++ type of an activation dtype (fp32 or bf16).
#define REFMODEL_DISPATCH(dtype, ...)              \
  do {                                             \
    if ((dtype) == ::refmodel::DType::kFloat32) {  \
      using T = float;                             \
      __VA_ARGS__;                                 \
    } else {                                       \
      using T = __nv_bfloat16;                     \
      __VA_ARGS__;                                 \
    }                                              \
  } while (0)
