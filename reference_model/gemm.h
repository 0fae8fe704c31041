// Row-major (batched) matrix products on cuBLAS with fp32 accumulation.
#pragma once

#include <cstdint>

#include "dtype.h"

namespace refmodel {

class Context;

struct GemmOperand {
  const void* data;
  DType dtype;
  std::int64_t ld;          // row stride in elements
  std::int64_t stride = 0;  // between batch entries, in elements
  bool transposed = false;  // use the stored matrix transposed
};

struct GemmOutput {
  void* data;
  DType dtype;
  std::int64_t ld;
  std::int64_t stride = 0;
};

// C[M, N] = alpha * op(A)[M, K] * op(B)[K, N] + beta * C, all row-major, `batch` times.
void gemm(Context& ctx, std::int64_t m, std::int64_t n, std::int64_t k, float alpha,
          const GemmOperand& a, const GemmOperand& b, float beta, const GemmOutput& c,
          std::int64_t batch = 1);

}  // namespace refmodel
