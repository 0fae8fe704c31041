// Device and pinned-host allocator with the model's own exact live-bytes counter (the second witness).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

namespace refmodel {

// Every device buffer of the model goes through here: one cudaMallocAsync per tensor storage on the
// stream that uses it, one cudaFreeAsync when the storage dies. The counters count requested bytes
// exactly, so a tracer that sees every cudaMallocAsync/cudaFreeAsync must arrive at the same numbers.
class Allocator {
 public:
  Allocator();
  ~Allocator() = default;
  Allocator(const Allocator&) = delete;
  Allocator& operator=(const Allocator&) = delete;

  void* allocate(std::size_t bytes, cudaStream_t stream);
  void free(void* ptr, std::size_t bytes, cudaStream_t stream);
  void* allocateHost(std::size_t bytes);
  void freeHost(void* ptr, std::size_t bytes);

  std::int64_t liveBytes() const { return live_bytes_; }
  std::int64_t peakBytes() const { return peak_bytes_; }
  std::int64_t hostLiveBytes() const { return host_live_bytes_; }
  std::int64_t allocations() const { return allocations_; }

  // A window (the idle window between iterations) tracks the minimum of live bytes inside it.
  void beginWindow();
  std::int64_t windowMinBytes() const { return window_min_bytes_; }
  void resetPeak() { peak_bytes_ = live_bytes_; }

 private:
  std::int64_t live_bytes_ = 0;
  std::int64_t peak_bytes_ = 0;
  std::int64_t host_live_bytes_ = 0;
  std::int64_t allocations_ = 0;
  std::int64_t window_min_bytes_ = 0;
};

}  // namespace refmodel
