// Per-tensor device storage shared by aliases: release (resize_(0)), record_stream, host offload.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <vector>

namespace refmodel {

class Allocator;

// One cudaMallocAsync'd buffer. Tensors that alias each other hold the same Storage through a
// shared_ptr, so the memory goes back when the last owner drops it, or earlier through release(),
// which frees it for every alias at once (PyTorch's untyped_storage().resize_(0)).
class Storage {
 public:
  Storage(Allocator& allocator, std::size_t bytes, cudaStream_t stream);
  ~Storage();
  Storage(const Storage&) = delete;
  Storage& operator=(const Storage&) = delete;

  // Device pointer; a storage offloaded to host is first reloaded on its home stream.
  void* data();
  std::size_t bytes() const { return bytes_; }
  bool resident() const { return device_ != nullptr; }
  bool offloaded() const { return host_valid_; }
  cudaStream_t stream() const { return stream_; }

  // record_stream: the memory must not be reused before work queued so far on `stream` is done.
  void recordStream(cudaStream_t stream);
  // resize_(0): frees the device memory now (stream-ordered); data() afterwards is an error.
  void release();
  // Copies the data to pinned host memory on `side` and frees the device memory behind the copy.
  void offloadToHost(cudaStream_t side);

 private:
  void freeDevice();
  void reload();

  Allocator* allocator_;
  void* device_ = nullptr;
  void* host_ = nullptr;  // pinned buffer, kept for reuse until the storage dies
  bool host_valid_ = false;
  std::size_t bytes_;
  cudaStream_t stream_;
  cudaEvent_t host_ready_ = nullptr;
  std::vector<cudaStream_t> used_streams_;
};

}  // namespace refmodel
