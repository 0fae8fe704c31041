// Error checks for CUDA runtime and cuBLAS calls.
#include "cuda_check.h"

namespace refmodel {

void checkCuda(cudaError_t status, const char* call, const char* file, int line) {
  if (status == cudaSuccess) return;
  throw CudaError(std::string(file) + ":" + std::to_string(line) + ": " + call + " failed: " +
                  cudaGetErrorName(status) + " (" + cudaGetErrorString(status) + ")");
}

void checkCublas(cublasStatus_t status, const char* call, const char* file, int line) {
  if (status == CUBLAS_STATUS_SUCCESS) return;
  throw CudaError(std::string(file) + ":" + std::to_string(line) + ": " + call +
                  " failed: " + cublasGetStatusName(status));
}

}  // namespace refmodel
