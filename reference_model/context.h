// The runtime context every op takes: allocator, compute and side streams, cuBLAS, grad mode.
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <memory>

#include "allocator.h"
#include "gemm_timer.h"

namespace refmodel {

class Storage;

// One per process (owned by main or a test), passed by reference: no global mutable state. It must
// outlive every tensor, since storages return their memory through its allocator.
class Context {
 public:
  Context();
  ~Context();
  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;

  Allocator& allocator() { return allocator_; }
  cudaStream_t stream() const { return stream_; }
  cudaStream_t sideStream() const { return side_stream_; }
  cublasHandle_t cublas() const { return cublas_; }
  bool gradEnabled() const { return grad_enabled_; }
  void setGradEnabled(bool enabled) { grad_enabled_ = enabled; }
  void synchronize() const;
  // Non-null while GEMM timing is on (--time-gemm): every cuBLAS product is bracketed by events.
  GemmTimer* gemmTimer() { return gemm_timer_.get(); }
  void enableGemmTiming() { gemm_timer_ = std::make_unique<GemmTimer>(); }

 private:
  Allocator allocator_;
  cudaStream_t stream_ = nullptr;
  cudaStream_t side_stream_ = nullptr;
  cublasHandle_t cublas_ = nullptr;
  std::unique_ptr<Storage> cublas_workspace_;
  bool grad_enabled_ = true;
  std::unique_ptr<GemmTimer> gemm_timer_;
};

// Sets grad mode for a scope (torch.no_grad() / torch.enable_grad()).
class GradModeGuard {
 public:
  GradModeGuard(Context& ctx, bool enabled) : ctx_(ctx), previous_(ctx.gradEnabled()) {
    ctx_.setGradEnabled(enabled);
  }
  ~GradModeGuard() { ctx_.setGradEnabled(previous_); }
  GradModeGuard(const GradModeGuard&) = delete;
  GradModeGuard& operator=(const GradModeGuard&) = delete;

 private:
  Context& ctx_;
  bool previous_;
};

// True when a CUDA device is present (GPU tests skip without one).
bool cudaDevicePresent();

}  // namespace refmodel
