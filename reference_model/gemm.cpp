// Row-major (batched) matrix products on cuBLAS with fp32 accumulation.
#include "gemm.h"

#include <cublas_v2.h>

#include "context.h"
#include "cuda_check.h"

namespace refmodel {

namespace {

cudaDataType_t cudaType(DType dtype) {
  return dtype == DType::kBFloat16 ? CUDA_R_16BF : CUDA_R_32F;
}

int asInt(std::int64_t v) { return static_cast<int>(v); }

}  // namespace

// cuBLAS is column-major: a row-major C[M, N] is a column-major C^T[N, M], and
// C^T = op(B)^T op(A)^T, so B goes first and the dimensions swap.
void gemm(Context& ctx, std::int64_t m, std::int64_t n, std::int64_t k, float alpha,
          const GemmOperand& a, const GemmOperand& b, float beta, const GemmOutput& c,
          std::int64_t batch) {
  if (m == 0 || n == 0 || batch == 0) return;
  const cublasOperation_t op_b = b.transposed ? CUBLAS_OP_T : CUBLAS_OP_N;
  const cublasOperation_t op_a = a.transposed ? CUBLAS_OP_T : CUBLAS_OP_N;
  GemmTimer* timer = ctx.gemmTimer();
  if (timer != nullptr) timer->begin(ctx.stream());
  REFMODEL_CUBLAS(cublasGemmStridedBatchedEx(
      ctx.cublas(), op_b, op_a, asInt(n), asInt(m), asInt(k), &alpha, b.data, cudaType(b.dtype),
      asInt(b.ld), b.stride, a.data, cudaType(a.dtype), asInt(a.ld), a.stride, &beta, c.data,
      cudaType(c.dtype), asInt(c.ld), c.stride, asInt(batch), CUBLAS_COMPUTE_32F,
      CUBLAS_GEMM_DEFAULT));
  if (timer != nullptr) timer->end(ctx.stream());
}

}  // namespace refmodel
