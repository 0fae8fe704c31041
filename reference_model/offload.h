// Fine-grained activation offloading: the per-use interface object and the manager that commits groups.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "tensor.h"

namespace refmodel {

class Context;

// The framework's global offload manager, here owned by the model and passed by reference. It
// collects the tensors registered since the last commit; a commit copies them to pinned host memory
// on the side stream and frees their device memory (reloaded on the next access in backward).
class OffloadManager {
 public:
  OffloadManager(Context& ctx, bool enabled) : ctx_(ctx), enabled_(enabled) {}

  bool enabled() const { return enabled_; }
  void registerTensor(const Tensor& tensor);
  void commitGroup(const std::string& name, const std::vector<Tensor>& forced_released);
  // Per-iteration reset: drops what the manager itself holds. Members of layers are not touched.
  void reset() { pending_.clear(); }
  std::int64_t offloadedBytes() const { return offloaded_bytes_; }

 private:
  Context& ctx_;
  bool enabled_;
  std::vector<Tensor> pending_;
  std::int64_t offloaded_bytes_ = 0;
};

// FineGrainedActivationOffloadingInterface(offload, tensor, name): a context object around a norm.
// It stores `tensor` unconditionally, also when offload is off, and does not drop it on exit.
class FineGrainedActivationOffloadingInterface {
 public:
  FineGrainedActivationOffloadingInterface(bool offload, Tensor tensor, std::string name,
                                           OffloadManager& manager);

  Tensor enter();  // the tensor to normalise (registered with the manager when offloading)
  void exit() {}   // keeps the reference, as the framework's __exit__ does
  // Terminal call: commits the group (offload + release of forced_released) and returns `t`.
  Tensor groupOffload(const Tensor& t, const std::vector<Tensor>& forced_released = {});

  const Tensor& tensor() const { return tensor_; }
  const std::string& name() const { return name_; }

 private:
  bool offload_;
  Tensor tensor_;
  std::string name_;
  OffloadManager& manager_;
};

}  // namespace refmodel
