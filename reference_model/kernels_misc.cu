// Kernels for fills, conversions, accumulation, deterministic reductions, Adam and synthetic data.
#include "kernels.h"
#include "kernels_common.cuh"

namespace refmodel::kernels {
namespace {

constexpr int kThreads = 256;

__host__ __device__ inline std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

template <typename T>
__global__ void fillNormalKernel(T* out, std::int64_t n, float stddev, std::uint64_t seed) {
  const std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  if (i >= n) return;
  const std::uint64_t a = splitmix64(seed ^ splitmix64(2 * static_cast<std::uint64_t>(i)));
  const std::uint64_t b = splitmix64(seed ^ splitmix64(2 * static_cast<std::uint64_t>(i) + 1));
  const float u1 = (static_cast<float>(a >> 40) + 1.f) / 16777217.f;
  const float u2 = static_cast<float>(b >> 40) / 16777216.f;
  const float z = sqrtf(-2.f * logf(u1)) * cospif(2.f * u2);
  out[i] = fromFloat<T>(z * stddev);
}

template <typename T>
__global__ void fillKernel(T* out, std::int64_t n, float value) {
  const std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  if (i < n) out[i] = fromFloat<T>(value);
}

template <typename D, typename S>
__global__ void addIntoKernel(D* out, const S* in, std::int64_t n, float alpha, bool overwrite) {
  const std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  if (i >= n) return;
  const float base = overwrite ? 0.f : toFloat(out[i]);
  out[i] = fromFloat<D>(base + alpha * toFloat(in[i]));
}

// 32 columns per block, 32 row lanes; each lane sums a strided set of rows, then the lanes are
// added in a fixed order: the same inputs always give the same bits.
template <typename T>
__global__ void columnSumKernel(const T* in, float* out, std::int64_t rows, std::int64_t cols) {
  __shared__ float partial[32][33];
  const std::int64_t c = blockIdx.x * 32 + threadIdx.x;
  float acc = 0.f;
  if (c < cols) {
    for (std::int64_t r = threadIdx.y; r < rows; r += 32) acc += toFloat(in[r * cols + c]);
  }
  partial[threadIdx.y][threadIdx.x] = acc;
  __syncthreads();
  if (threadIdx.y == 0 && c < cols) {
    float total = 0.f;
    for (int lane = 0; lane < 32; ++lane) total += partial[lane][threadIdx.x];
    out[c] = total;
  }
}

__global__ void sumAllKernel(const float* in, float* out, std::int64_t n, float scale) {
  float acc = 0.f;
  for (std::int64_t i = threadIdx.x; i < n; i += blockDim.x) acc += in[i];
  acc = blockSum(acc);
  if (threadIdx.x == 0) out[0] = acc * scale;
}

__global__ void broadcastScalarKernel(const float* scalar, float* out, std::int64_t n,
                                      float scale) {
  const std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  if (i < n) out[i] = scale * scalar[0];
}

template <typename T>
__global__ void adamKernel(float* master, T* param, float* m, float* v, const float* grad,
                           std::int64_t n, float lr, float beta1, float beta2, float eps,
                           float correction1, float correction2) {
  const std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  if (i >= n) return;
  const float g = grad[i];
  const float mi = beta1 * m[i] + (1.f - beta1) * g;
  const float vi = beta2 * v[i] + (1.f - beta2) * g * g;
  m[i] = mi;
  v[i] = vi;
  const float update = (mi / correction1) / (sqrtf(vi / correction2) + eps);
  const float w = master[i] - lr * update;
  master[i] = w;
  param[i] = fromFloat<T>(w);
}

__global__ void makeBatchKernel(std::int32_t* tokens, std::int32_t* labels, std::int64_t seq,
                                std::int64_t batch, std::int64_t vocab, std::uint64_t seed) {
  const std::int64_t t = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  if (t >= seq * batch) return;
  const std::int64_t position = t / batch;  // tokens are laid out [s, b]
  const std::int64_t sequence = t % batch;
  const std::uint64_t h = splitmix64(seed ^ splitmix64(static_cast<std::uint64_t>(sequence)));
  const std::int64_t start = static_cast<std::int64_t>(h % static_cast<std::uint64_t>(vocab));
  const std::int64_t step = 1 + static_cast<std::int64_t>((h >> 32) % 8);
  tokens[t] = static_cast<std::int32_t>((start + position * step) % vocab);
  labels[t] = static_cast<std::int32_t>((start + (position + 1) * step) % vocab);
}

template <typename D, typename S>
void launchAddInto(void* out, const void* in, std::int64_t n, float alpha, bool overwrite,
                   cudaStream_t stream) {
  addIntoKernel<D, S><<<blocksFor(n, kThreads), kThreads, 0, stream>>>(
      static_cast<D*>(out), static_cast<const S*>(in), n, alpha, overwrite);
}

void addIntoDispatch(void* out, DType out_dtype, const void* in, DType in_dtype, std::int64_t n,
                     float alpha, bool overwrite, cudaStream_t stream) {
  if (n == 0) return;
  const bool out_f = out_dtype == DType::kFloat32;
  const bool in_f = in_dtype == DType::kFloat32;
  if (out_f && in_f) launchAddInto<float, float>(out, in, n, alpha, overwrite, stream);
  if (out_f && !in_f) launchAddInto<float, __nv_bfloat16>(out, in, n, alpha, overwrite, stream);
  if (!out_f && in_f) launchAddInto<__nv_bfloat16, float>(out, in, n, alpha, overwrite, stream);
  if (!out_f && !in_f) {
    launchAddInto<__nv_bfloat16, __nv_bfloat16>(out, in, n, alpha, overwrite, stream);
  }
  checkLaunch("addInto");
}

}  // namespace

void fillNormal(void* out, DType dtype, std::int64_t n, float stddev, std::uint64_t seed,
                cudaStream_t stream) {
  if (n == 0) return;
  REFMODEL_DISPATCH(dtype, fillNormalKernel<T><<<blocksFor(n, kThreads), kThreads, 0, stream>>>(
                               static_cast<T*>(out), n, stddev, splitmix64(seed)));
  checkLaunch("fillNormal");
}

void fill(void* out, DType dtype, std::int64_t n, float value, cudaStream_t stream) {
  if (n == 0) return;
  REFMODEL_DISPATCH(dtype, fillKernel<T><<<blocksFor(n, kThreads), kThreads, 0, stream>>>(
                               static_cast<T*>(out), n, value));
  checkLaunch("fill");
}

void convert(const void* in, DType in_dtype, void* out, DType out_dtype, std::int64_t n,
             cudaStream_t stream) {
  addIntoDispatch(out, out_dtype, in, in_dtype, n, 1.f, true, stream);
}

void addInto(void* out, DType out_dtype, const void* in, DType in_dtype, std::int64_t n,
             float alpha, cudaStream_t stream) {
  addIntoDispatch(out, out_dtype, in, in_dtype, n, alpha, false, stream);
}

void columnSum(const void* in, DType dtype, float* out, std::int64_t rows, std::int64_t cols,
               cudaStream_t stream) {
  if (cols == 0) return;
  const dim3 block(32, 32);
  const auto grid = static_cast<unsigned>((cols + 31) / 32);
  REFMODEL_DISPATCH(dtype, columnSumKernel<T><<<grid, block, 0, stream>>>(
                               static_cast<const T*>(in), out, rows, cols));
  checkLaunch("columnSum");
}

void sumAll(const float* in, float* out, std::int64_t n, float scale, cudaStream_t stream) {
  sumAllKernel<<<1, 1024, 0, stream>>>(in, out, n, scale);
  checkLaunch("sumAll");
}

void broadcastScalar(const float* scalar, float* out, std::int64_t n, float scale,
                     cudaStream_t stream) {
  if (n == 0) return;
  broadcastScalarKernel<<<blocksFor(n, kThreads), kThreads, 0, stream>>>(scalar, out, n, scale);
  checkLaunch("broadcastScalar");
}

void adamStep(float* master, void* param, DType dtype, float* m, float* v, const float* grad,
              std::int64_t n, float lr, float beta1, float beta2, float eps, int step,
              cudaStream_t stream) {
  if (n == 0) return;
  const float c1 = 1.f - powf(beta1, static_cast<float>(step));
  const float c2 = 1.f - powf(beta2, static_cast<float>(step));
  REFMODEL_DISPATCH(dtype, adamKernel<T><<<blocksFor(n, kThreads), kThreads, 0, stream>>>(
                               master, static_cast<T*>(param), m, v, grad, n, lr, beta1, beta2,
                               eps, c1, c2));
  checkLaunch("adamStep");
}

void makeBatch(std::int32_t* tokens, std::int32_t* labels, std::int64_t seq, std::int64_t batch,
               std::int64_t vocab, std::uint64_t seed, cudaStream_t stream) {
  makeBatchKernel<<<blocksFor(seq * batch, kThreads), kThreads, 0, stream>>>(
      tokens, labels, seq, batch, vocab, splitmix64(seed));
  checkLaunch("makeBatch");
}

}  // namespace refmodel::kernels
