// Device and pinned-host allocator with the model's own exact live-bytes counter.
#include "allocator.h"

#include <algorithm>
#include <cstdint>

#include "cuda_check.h"

namespace refmodel {

Allocator::Allocator() {
  int device = 0;
  REFMODEL_CUDA(cudaGetDevice(&device));
  cudaMemPool_t pool = nullptr;
  REFMODEL_CUDA(cudaDeviceGetDefaultMemPool(&pool, device));
  // Keep freed memory in the pool (as a framework's caching allocator would): the counters and a
  // tracer see allocations, not the pool's reservations.
  std::uint64_t threshold = UINT64_MAX;
  REFMODEL_CUDA(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &threshold));
}

void* Allocator::allocate(std::size_t bytes, cudaStream_t stream) {
  if (bytes == 0) return nullptr;
  void* ptr = nullptr;
  REFMODEL_CUDA(cudaMallocAsync(&ptr, bytes, stream));
  live_bytes_ += static_cast<std::int64_t>(bytes);
  ++allocations_;
  peak_bytes_ = std::max(peak_bytes_, live_bytes_);
  return ptr;
}

void Allocator::free(void* ptr, std::size_t bytes, cudaStream_t stream) {
  if (ptr == nullptr) return;
  REFMODEL_CUDA(cudaFreeAsync(ptr, stream));
  live_bytes_ -= static_cast<std::int64_t>(bytes);
  window_min_bytes_ = std::min(window_min_bytes_, live_bytes_);
}

void* Allocator::allocateHost(std::size_t bytes) {
  void* ptr = nullptr;
  REFMODEL_CUDA(cudaMallocHost(&ptr, bytes));
  host_live_bytes_ += static_cast<std::int64_t>(bytes);
  return ptr;
}

void Allocator::freeHost(void* ptr, std::size_t bytes) {
  if (ptr == nullptr) return;
  REFMODEL_CUDA(cudaFreeHost(ptr));
  host_live_bytes_ -= static_cast<std::int64_t>(bytes);
}

void Allocator::beginWindow() { window_min_bytes_ = live_bytes_; }

}  // namespace refmodel
