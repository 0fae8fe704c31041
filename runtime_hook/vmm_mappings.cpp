// VMM call bookkeeping: handles' devices, mapped ranges, and their Alloc/Free records.
#include "runtime_hook/vmm_mappings.h"

namespace memfloor::hook {

namespace {

void stampInto(trace::MemoryEvent& event, const CallStamp& stamp) {
  event.timestamp = stamp.timestamp;
  event.thread = stamp.thread;
  event.correlation = stamp.correlation;
  event.kind = trace::MemoryKind::kDevice;
  event.flags = trace::kMemoryFlagVmm;
}

}  // namespace

bool vmmCallInfo(CUpti_CallbackId cbid, const void* p, CallInfo& out) {
  if (p == nullptr) return false;
  switch (cbid) {
    case CUPTI_DRIVER_TRACE_CBID_cuMemCreate:
      out.key = static_cast<const cuMemCreate_params*>(p)->size;
      out.flags = kCallVmm | kCallAlloc | kKeyIsSize;
      return true;
    case CUPTI_DRIVER_TRACE_CBID_cuMemMap:
      out.key = static_cast<const cuMemMap_params*>(p)->ptr;
      out.flags = kCallVmm | kCallAlloc | kKeyIsAddress;
      return true;
    case CUPTI_DRIVER_TRACE_CBID_cuMemSetAccess:
      out.key = static_cast<const cuMemSetAccess_params*>(p)->ptr;
      out.flags = kCallVmm | kCallAlloc | kKeyIsAddress;
      return true;
    case CUPTI_DRIVER_TRACE_CBID_cuMemUnmap:
      out.key = static_cast<const cuMemUnmap_params*>(p)->ptr;
      out.flags = kCallVmm | kCallFree | kKeyIsAddress;
      return true;
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
      trace::Alloc alloc;
      stampInto(alloc, stamp);
      alloc.address = static_cast<uint64_t>(p->ptr);
      alloc.size = p->size;
      std::lock_guard<std::mutex> lock(mutex_);
      auto it = handle_device_.find(static_cast<uint64_t>(p->handle));
      alloc.device = it != handle_device_.end() ? it->second : 0;
      mapping_device_[alloc.address] = alloc.device;
      return alloc;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuMemUnmap: {
      const auto* p = static_cast<const cuMemUnmap_params*>(params);
      trace::Free free;
      stampInto(free, stamp);
      free.address = static_cast<uint64_t>(p->ptr);
      free.size = p->size;
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
