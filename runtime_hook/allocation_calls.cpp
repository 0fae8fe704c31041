// Keys of the driver's allocation and free calls, and the join of MEMORY2 records to them.
#include "runtime_hook/allocation_calls.h"

namespace memfloor::hook {

namespace {

// What the MEMORY2 record of the call must show: its size (allocations) or its address (frees).
bool bySize(uint64_t size, CallInfo& out) {
  out.key = size;
  out.flags = kCallAlloc | kKeyIsSize;
  return true;
}

bool byAddress(uint64_t address, CallInfo& out) {
  out.key = address;
  out.flags = kCallFree | kKeyIsAddress;
  return true;
}

}  // namespace

bool isStreamOrderedAlloc(CUpti_CallbackId cbid) {
  return cbid == CUPTI_DRIVER_TRACE_CBID_cuMemAllocAsync ||
         cbid == CUPTI_DRIVER_TRACE_CBID_cuMemAllocAsync_ptsz ||
         cbid == CUPTI_DRIVER_TRACE_CBID_cuMemAllocFromPoolAsync ||
         cbid == CUPTI_DRIVER_TRACE_CBID_cuMemAllocFromPoolAsync_ptsz;
}

bool allocationCallInfo(CUpti_CallbackId cbid, const void* p, CallInfo& out) {
  if (p == nullptr) return false;
  switch (cbid) {
    case CUPTI_DRIVER_TRACE_CBID_cuMemAlloc_v2:
      return bySize(static_cast<const cuMemAlloc_v2_params*>(p)->bytesize, out);
    case CUPTI_DRIVER_TRACE_CBID_cuMemAllocHost_v2:
      return bySize(static_cast<const cuMemAllocHost_v2_params*>(p)->bytesize, out);
    case CUPTI_DRIVER_TRACE_CBID_cuMemHostAlloc:
      return bySize(static_cast<const cuMemHostAlloc_params*>(p)->bytesize, out);
    case CUPTI_DRIVER_TRACE_CBID_cuMemAllocManaged:
      return bySize(static_cast<const cuMemAllocManaged_params*>(p)->bytesize, out);
    case CUPTI_DRIVER_TRACE_CBID_cuMemAllocAsync:
    case CUPTI_DRIVER_TRACE_CBID_cuMemAllocAsync_ptsz:
      return bySize(static_cast<const cuMemAllocAsync_params*>(p)->bytesize, out);
    case CUPTI_DRIVER_TRACE_CBID_cuMemAllocFromPoolAsync:
    case CUPTI_DRIVER_TRACE_CBID_cuMemAllocFromPoolAsync_ptsz:
      return bySize(static_cast<const cuMemAllocFromPoolAsync_params*>(p)->bytesize, out);
    case CUPTI_DRIVER_TRACE_CBID_cuMemAllocPitch_v2: {
      const auto* q = static_cast<const cuMemAllocPitch_v2_params*>(p);
      return bySize(uint64_t{q->WidthInBytes} * q->Height, out);  // matches only without padding
    }
    case CUPTI_DRIVER_TRACE_CBID_cuMemFree_v2:
      return byAddress(static_cast<const cuMemFree_v2_params*>(p)->dptr, out);
    case CUPTI_DRIVER_TRACE_CBID_cuMemFreeHost:
      return byAddress(reinterpret_cast<uint64_t>(static_cast<const cuMemFreeHost_params*>(p)->p),
                       out);
    case CUPTI_DRIVER_TRACE_CBID_cuMemFreeAsync:
    case CUPTI_DRIVER_TRACE_CBID_cuMemFreeAsync_ptsz:
      return byAddress(static_cast<const cuMemFreeAsync_params*>(p)->dptr, out);
    default:
      return false;
  }
}

Join joinCall(const CorrelationTable& calls, trace::MemoryEvent& event, bool is_alloc) {
  CallInfo call;
  if (!calls.get(static_cast<uint32_t>(event.correlation), call)) return Join::kNoCall;
  if (!belongsTo(call, is_alloc, event.address, event.size)) return Join::kNoCall;  // a stale id
  if ((call.flags & kCallVmm) != 0) return Join::kVmmDuplicate;
  event.thread = call.thread;
  event.stack = call.stack;
  return Join::kJoined;
}

}  // namespace memfloor::hook
