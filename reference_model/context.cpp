// The runtime context every op takes: allocator, compute and side streams, cuBLAS, grad mode.
#include "context.h"

#include "cuda_check.h"
#include "storage.h"

namespace refmodel {

namespace {
constexpr std::size_t kCublasWorkspaceBytes = std::size_t{32} << 20;
}

Context::Context() {
  REFMODEL_CUDA(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
  REFMODEL_CUDA(cudaStreamCreateWithFlags(&side_stream_, cudaStreamNonBlocking));
  REFMODEL_CUBLAS(cublasCreate(&cublas_));
  REFMODEL_CUBLAS(cublasSetStream(cublas_, stream_));
  // cuBLAS works in a buffer of ours, so its scratch memory is in the model's own counter too.
  cublas_workspace_ = std::make_unique<Storage>(allocator_, kCublasWorkspaceBytes, stream_);
  REFMODEL_CUBLAS(cublasSetWorkspace(cublas_, cublas_workspace_->data(), kCublasWorkspaceBytes));
}

Context::~Context() {
  cudaStreamSynchronize(stream_);
  cudaStreamSynchronize(side_stream_);
  cublasDestroy(cublas_);
  cublas_workspace_.reset();
  cudaStreamSynchronize(stream_);
  cudaStreamDestroy(side_stream_);
  cudaStreamDestroy(stream_);
}

void Context::synchronize() const {
  REFMODEL_CUDA(cudaStreamSynchronize(stream_));
  REFMODEL_CUDA(cudaStreamSynchronize(side_stream_));
}

bool cudaDevicePresent() {
  int count = 0;
  return cudaGetDeviceCount(&count) == cudaSuccess && count > 0;
}

}  // namespace refmodel
