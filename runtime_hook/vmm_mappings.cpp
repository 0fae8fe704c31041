// VMM call bookkeeping: handles' devices, mapped ranges, and their Alloc/Free records.
#include "runtime_hook/vmm_mappings.h"

namespace memfloor::hook {

namespace {

// The Alloc or Free of the range [ptr, ptr + size) that a cuMemMap or cuMemUnmap names.
template <class Event, class Params>
Event rangeEvent(const Params& p, const CallStamp& stamp) {
  Event event;
  event.timestamp = stamp.timestamp;
  event.thread = stamp.thread;
  event.correlation = stamp.correlation;
  event.address = static_cast<uint64_t>(p.ptr);
  event.size = p.size;
  event.kind = trace::MemoryKind::kDevice;
  event.flags = trace::kMemoryFlagVmm;
  return event;
}

}  // namespace

bool vmmCallInfo(CUpti_CallbackId cbid, const void* p, CallInfo& out) {
  if (p == nullptr) return false;
  auto keyed = [&out](uint64_t key, uint8_t flags) {
    out.key = key;
    out.flags = kCallVmm | flags;
    return true;
  };
  switch (cbid) {
    case CUPTI_DRIVER_TRACE_CBID_cuMemCreate:
      return keyed(static_cast<const cuMemCreate_params*>(p)->size, kCallAlloc | kKeyIsSize);
    case CUPTI_DRIVER_TRACE_CBID_cuMemMap:
      return keyed(static_cast<const cuMemMap_params*>(p)->ptr, kCallAlloc | kKeyIsAddress);
    case CUPTI_DRIVER_TRACE_CBID_cuMemSetAccess:
      return keyed(static_cast<const cuMemSetAccess_params*>(p)->ptr, kCallAlloc | kKeyIsAddress);
    case CUPTI_DRIVER_TRACE_CBID_cuMemUnmap:
      return keyed(static_cast<const cuMemUnmap_params*>(p)->ptr, kCallFree | kKeyIsAddress);
    default:
      return false;
  }
}

VmmRecord VmmMappings::onSuccess(CUpti_CallbackId cbid, const void* params,
                                 const CallStamp& stamp) {
  if (params == nullptr) return {};
  switch (cbid) {
    case CUPTI_DRIVER_TRACE_CBID_cuMemCreate: {
      const auto* p = static_cast<const cuMemCreate_params*>(params);
      if (p->handle == nullptr || p->prop == nullptr) return {};
      uint32_t device = p->prop->location.type == CU_MEM_LOCATION_TYPE_DEVICE
                            ? static_cast<uint32_t>(p->prop->location.id)
                            : 0;
      std::lock_guard<std::mutex> lock(mutex_);
      handle_device_[static_cast<uint64_t>(*p->handle)] = device;
      return {};
    }
    case CUPTI_DRIVER_TRACE_CBID_cuMemRelease: {
      const auto* p = static_cast<const cuMemRelease_params*>(params);
      std::lock_guard<std::mutex> lock(mutex_);
      handle_device_.erase(static_cast<uint64_t>(p->handle));
      return {};
    }
    case CUPTI_DRIVER_TRACE_CBID_cuMemMap: {
      const auto* p = static_cast<const cuMemMap_params*>(params);
      auto alloc = rangeEvent<trace::Alloc>(*p, stamp);
      std::lock_guard<std::mutex> lock(mutex_);
      auto it = handle_device_.find(static_cast<uint64_t>(p->handle));
      alloc.device = it != handle_device_.end() ? it->second : 0;
      mapping_device_[alloc.address] = alloc.device;
      return alloc;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuMemUnmap: {
      auto free = rangeEvent<trace::Free>(*static_cast<const cuMemUnmap_params*>(params), stamp);
      std::lock_guard<std::mutex> lock(mutex_);
      auto it = mapping_device_.find(free.address);
      if (it != mapping_device_.end()) {
        free.device = it->second;
        mapping_device_.erase(it);
      }
      return free;
    }
    default:
      return {};
  }
}

}  // namespace memfloor::hook
