// Error checks for CUDA runtime and cuBLAS calls: throw CudaError with the call and its location.
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

namespace refmodel {

class CudaError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

void checkCuda(cudaError_t status, const char* call, const char* file, int line);
void checkCublas(cublasStatus_t status, const char* call, const char* file, int line);

}  // namespace refmodel

#define REFMODEL_CUDA(call) ::refmodel::checkCuda((call), #call, __FILE__, __LINE__)
#define REFMODEL_CUBLAS(call) ::refmodel::checkCublas((call), #call, __FILE__, __LINE__)
