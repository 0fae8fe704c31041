// Per-tensor device storage shared by aliases: release (resize_(0)), record_stream, host offload.
#include "storage.h"

#include <algorithm>
#include <cassert>

#include "allocator.h"
#include "cuda_check.h"

namespace refmodel {

Storage::Storage(Allocator& allocator, std::size_t bytes, cudaStream_t stream)
    : allocator_(&allocator), bytes_(bytes), stream_(stream) {
  device_ = allocator_->allocate(bytes_, stream_);
}

Storage::~Storage() {
  freeDevice();
  if (host_ != nullptr) {
    allocator_->freeHost(host_, bytes_);
  }
  if (host_ready_ != nullptr) {
    cudaEventDestroy(host_ready_);
  }
}

void* Storage::data() {
  if (device_ == nullptr && host_valid_) reload();
  assert((device_ != nullptr || bytes_ == 0) && "storage used after release()");
  return device_;
}

void Storage::recordStream(cudaStream_t stream) {
  if (stream == stream_) return;
  if (std::find(used_streams_.begin(), used_streams_.end(), stream) == used_streams_.end()) {
    used_streams_.push_back(stream);
  }
}

void Storage::release() {
  freeDevice();
  if (host_ != nullptr) {
    allocator_->freeHost(host_, bytes_);
    host_ = nullptr;
    host_valid_ = false;
  }
  bytes_ = 0;
}

void Storage::offloadToHost(cudaStream_t side) {
  if (device_ == nullptr) return;
  if (host_ == nullptr) host_ = allocator_->allocateHost(bytes_);
  cudaEvent_t produced = nullptr;
  REFMODEL_CUDA(cudaEventCreateWithFlags(&produced, cudaEventDisableTiming));
  REFMODEL_CUDA(cudaEventRecord(produced, stream_));
  REFMODEL_CUDA(cudaStreamWaitEvent(side, produced, 0));
  REFMODEL_CUDA(cudaEventDestroy(produced));
  REFMODEL_CUDA(cudaMemcpyAsync(host_, device_, bytes_, cudaMemcpyDeviceToHost, side));
  if (host_ready_ == nullptr) {
    REFMODEL_CUDA(cudaEventCreateWithFlags(&host_ready_, cudaEventDisableTiming));
  }
  REFMODEL_CUDA(cudaEventRecord(host_ready_, side));
  host_valid_ = true;
  recordStream(side);
  freeDevice();
}

void Storage::freeDevice() {
  if (device_ == nullptr) return;
  // record_stream semantics: the home stream waits for every other stream that used the memory.
  for (cudaStream_t other : used_streams_) {
    cudaEvent_t done = nullptr;
    REFMODEL_CUDA(cudaEventCreateWithFlags(&done, cudaEventDisableTiming));
    REFMODEL_CUDA(cudaEventRecord(done, other));
    REFMODEL_CUDA(cudaStreamWaitEvent(stream_, done, 0));
    REFMODEL_CUDA(cudaEventDestroy(done));
  }
  used_streams_.clear();
  allocator_->free(device_, bytes_, stream_);
  device_ = nullptr;
}

void Storage::reload() {
  device_ = allocator_->allocate(bytes_, stream_);
  REFMODEL_CUDA(cudaStreamWaitEvent(stream_, host_ready_, 0));
  REFMODEL_CUDA(cudaMemcpyAsync(device_, host_, bytes_, cudaMemcpyHostToDevice, stream_));
  // The pinned buffer stays allocated for a later offload of the same storage.
  host_valid_ = false;
}

}  // namespace refmodel
