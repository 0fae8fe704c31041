// The driver's allocation and free entry points: what their callbacks keep for the MEMORY2 record
// of the same call (the size or address that record must show, its direction), and the join of
// that record to what was kept. No CUPTI calls: the callback data is the caller's.
#pragma once

#include <cupti.h>  // with the driver calls' parameter structs (generated_cuda_meta.h)

#include "runtime_hook/correlation_table.h"
#include "trace/records.h"

namespace memfloor::hook {

// Their callbacks take the allocating thread's stack. The runtime API goes through them
// (cudaMalloc -> cuMemAlloc_v2, cudaMallocHost -> cuMemHostAlloc, ...).
inline constexpr CUpti_CallbackId kAllocCalls[] = {
    CUPTI_DRIVER_TRACE_CBID_cuMemAlloc_v2,
    CUPTI_DRIVER_TRACE_CBID_cuMemAllocPitch_v2,
    CUPTI_DRIVER_TRACE_CBID_cuMemAllocHost_v2,
    CUPTI_DRIVER_TRACE_CBID_cuMemHostAlloc,
    CUPTI_DRIVER_TRACE_CBID_cuMemAllocManaged,
    CUPTI_DRIVER_TRACE_CBID_cuMemAllocAsync,
    CUPTI_DRIVER_TRACE_CBID_cuMemAllocAsync_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuMemAllocFromPoolAsync,
    CUPTI_DRIVER_TRACE_CBID_cuMemAllocFromPoolAsync_ptsz,
};
// Their callbacks give the freeing thread.
inline constexpr CUpti_CallbackId kFreeCalls[] = {
    CUPTI_DRIVER_TRACE_CBID_cuMemFree_v2,
    CUPTI_DRIVER_TRACE_CBID_cuMemFreeHost,
    CUPTI_DRIVER_TRACE_CBID_cuMemFreeAsync,
    CUPTI_DRIVER_TRACE_CBID_cuMemFreeAsync_ptsz,
};

// Stream-ordered allocations (cudaMallocAsync: PyTorch's async backend makes one per tensor). The
// other allocation calls, and VMM mappings, are rare: segments, NCCL's buffers, workspaces.
bool isStreamOrderedAlloc(CUpti_CallbackId cbid);

// At the entry of one of the calls above, with its driver parameters: sets the key (requested size
// of an allocation, address of a free) and the flags, leaves thread and stack alone. False for any
// other call or without parameters.
bool allocationCallInfo(CUpti_CallbackId cbid, const void* params, CallInfo& out);

enum class Join {
  kNoCall,        // no call of ours under the record's id (or a stale one): written as it is
  kJoined,        // thread and stack added
  kVmmDuplicate,  // the record repeats a VMM call already written from its callback: drop it
};

// Looks up the call with the record's correlation id and, if the record belongs to it, adds what
// its callback learned.
Join joinCall(const CorrelationTable& calls, trace::MemoryEvent& event, bool is_alloc);

}  // namespace memfloor::hook
