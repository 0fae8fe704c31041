// Fine-grained activation offloading: the per-use interface object and the manager that commits groups.
#include "offload.h"

#include "context.h"
#include "storage.h"

namespace refmodel {

void OffloadManager::registerTensor(const Tensor& tensor) {
  if (enabled_ && tensor.defined()) pending_.push_back(tensor);
}

void OffloadManager::commitGroup(const std::string& /*name*/,
                                 const std::vector<Tensor>& forced_released) {
  if (!enabled_) return;
  for (const Tensor& t : forced_released) registerTensor(t);
  for (const Tensor& t : pending_) {
    Storage& storage = *t.storage();
    if (!storage.resident()) continue;
    offloaded_bytes_ += static_cast<std::int64_t>(storage.bytes());
    storage.offloadToHost(ctx_.sideStream());
  }
  pending_.clear();
}

FineGrainedActivationOffloadingInterface::FineGrainedActivationOffloadingInterface(
    bool offload, Tensor tensor, std::string name, OffloadManager& manager)
    : offload_(offload), tensor_(std::move(tensor)), name_(std::move(name)), manager_(manager) {}

Tensor FineGrainedActivationOffloadingInterface::enter() {
  if (offload_) manager_.registerTensor(tensor_);
  return tensor_;
}

Tensor FineGrainedActivationOffloadingInterface::groupOffload(
    const Tensor& t, const std::vector<Tensor>& forced_released) {
  if (offload_) manager_.commitGroup(name_, forced_released);
  return t;
}

}  // namespace refmodel
