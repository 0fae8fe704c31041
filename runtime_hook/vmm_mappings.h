// VMM calls (cuMemCreate, cuMemMap, cuMemSetAccess, cuMemUnmap, cuMemRelease), traced through
// driver callbacks because MEMORY2 may say nothing about mappings: the device of each handle and
// of each mapped range, under a lock of their own, and the records the calls stand for.
#pragma once

#include <cupti.h>  // with the driver calls' parameter structs (generated_cuda_meta.h)

#include <cstdint>
#include <mutex>
#include <unordered_map>
#include <variant>

#include "runtime_hook/call_stamp.h"
#include "runtime_hook/correlation_table.h"
#include "trace/records.h"

namespace memfloor::hook {

inline constexpr CUpti_CallbackId kVmmCalls[] = {
    CUPTI_DRIVER_TRACE_CBID_cuMemCreate,    CUPTI_DRIVER_TRACE_CBID_cuMemRelease,
    CUPTI_DRIVER_TRACE_CBID_cuMemMap,       CUPTI_DRIVER_TRACE_CBID_cuMemUnmap,
    CUPTI_DRIVER_TRACE_CBID_cuMemSetAccess,
};

// At a VMM call's entry: how to recognise a MEMORY2 record of the call (if CUPTI makes one), which
// duplicates what is written at its exit. Leaves the thread alone. False for cuMemRelease (it frees
// nothing a MEMORY2 record would name by address), other calls, or without parameters.
bool vmmCallInfo(CUpti_CallbackId cbid, const void* params, CallInfo& out);

// What a VMM call stands for in the trace: nothing, the Alloc of a mapping or its Free.
using VmmRecord = std::variant<std::monostate, trace::Alloc, trace::Free>;

class VmmMappings {
 public:
  // At the exit of a VMM call that succeeded, with its driver parameters. cuMemCreate and
  // cuMemRelease remember and forget the handle's device. A cuMemMap becomes a device Alloc of the
  // mapped range (flag vmm, device from the handle's cuMemCreate, else 0) and a cuMemUnmap its Free
  // (the device it was mapped on, else 0). The unit is the mapping: a handle mapped twice counts
  // twice. The stack is the caller's to add.
  VmmRecord onSuccess(CUpti_CallbackId cbid, const void* params, const CallStamp& stamp);

 private:
  std::mutex mutex_;  // guards both maps; held for a lookup only, never with another lock
  std::unordered_map<uint64_t, uint32_t> handle_device_;   // cuMemCreate handle -> device
  std::unordered_map<uint64_t, uint32_t> mapping_device_;  // mapped address -> device
};

}  // namespace memfloor::hook
