// Optional timing of every cuBLAS product with CUDA events (for the share of step time in cuBLAS).
#include "gemm_timer.h"

#include "cuda_check.h"

namespace refmodel {

GemmTimer::~GemmTimer() {
  for (cudaEvent_t e : events_) cudaEventDestroy(e);
}

void GemmTimer::begin(cudaStream_t stream) {
  while (events_.size() < used_ + 2) {
    cudaEvent_t e = nullptr;
    REFMODEL_CUDA(cudaEventCreate(&e));
    events_.push_back(e);
  }
  REFMODEL_CUDA(cudaEventRecord(events_[used_], stream));
}

void GemmTimer::end(cudaStream_t stream) {
  REFMODEL_CUDA(cudaEventRecord(events_[used_ + 1], stream));
  used_ += 2;
}

double GemmTimer::collectMs() {
  double total = 0;
  for (std::size_t i = 0; i + 1 < used_; i += 2) {
    float ms = 0.f;
    REFMODEL_CUDA(cudaEventElapsedTime(&ms, events_[i], events_[i + 1]));
    total += ms;
  }
  used_ = 0;
  return total;
}

}  // namespace refmodel
