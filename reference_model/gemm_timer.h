// Optional timing of every cuBLAS product with CUDA events (for the share of step time in cuBLAS).
#pragma once

#include <cuda_runtime.h>

#include <vector>

namespace refmodel {

// begin()/end() bracket one GEMM on a stream; collectMs() (after the stream is synchronised) sums
// the elapsed times since the last collect. Events are reused, so the steady state allocates none.
class GemmTimer {
 public:
  GemmTimer() = default;
  ~GemmTimer();
  GemmTimer(const GemmTimer&) = delete;
  GemmTimer& operator=(const GemmTimer&) = delete;

  void begin(cudaStream_t stream);
  void end(cudaStream_t stream);
  double collectMs();

 private:
  std::vector<cudaEvent_t> events_;  // pairs: start, stop
  std::size_t used_ = 0;
};

}  // namespace refmodel
