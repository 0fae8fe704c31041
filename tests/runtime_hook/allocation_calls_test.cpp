// The driver's allocation and free calls: the keys their callbacks keep, and the MEMORY2 join.
#include "runtime_hook/allocation_calls.h"

#include <catch2/catch.hpp>
#include <cstring>

using namespace memfloor;
using namespace memfloor::hook;

namespace {

trace::Alloc allocRecord(uint32_t correlation, uint64_t address, uint64_t size) {
  trace::Alloc a;
  a.correlation = correlation;
  a.address = address;
  a.size = size;
  return a;
}

}  // namespace

TEST_CASE("allocation calls are keyed by the size they ask for", "[runtime_hook]") {
  CallInfo call;
  cuMemAlloc_v2_params alloc{nullptr, 4096};
  REQUIRE(allocationCallInfo(CUPTI_DRIVER_TRACE_CBID_cuMemAlloc_v2, &alloc, call));
  CHECK(call.key == 4096);
  CHECK(call.flags == (kCallAlloc | kKeyIsSize));
  CHECK(call.thread == 0);  // the caller's
  CHECK(call.stack == 0);

  cuMemAllocAsync_params async{nullptr, 1 << 20, nullptr};
  REQUIRE(allocationCallInfo(CUPTI_DRIVER_TRACE_CBID_cuMemAllocAsync_ptsz, &async, call));
  CHECK(call.key == (1 << 20));

  cuMemHostAlloc_params host{nullptr, 65536, 0};
  REQUIRE(allocationCallInfo(CUPTI_DRIVER_TRACE_CBID_cuMemHostAlloc, &host, call));
  CHECK(call.key == 65536);

  // Pitched: width times height, which is what the record shows when no padding was added.
  cuMemAllocPitch_v2_params pitch{nullptr, nullptr, 512, 3, 4};
  REQUIRE(allocationCallInfo(CUPTI_DRIVER_TRACE_CBID_cuMemAllocPitch_v2, &pitch, call));
  CHECK(call.key == 1536);
  CHECK(call.flags == (kCallAlloc | kKeyIsSize));
}

TEST_CASE("stream-ordered allocations are told from the rare ones", "[runtime_hook]") {
  for (CUpti_CallbackId cbid : kAllocCalls) {
    const bool async = cbid == CUPTI_DRIVER_TRACE_CBID_cuMemAllocAsync ||
                       cbid == CUPTI_DRIVER_TRACE_CBID_cuMemAllocAsync_ptsz ||
                       cbid == CUPTI_DRIVER_TRACE_CBID_cuMemAllocFromPoolAsync ||
                       cbid == CUPTI_DRIVER_TRACE_CBID_cuMemAllocFromPoolAsync_ptsz;
    CHECK(isStreamOrderedAlloc(cbid) == async);
  }
  CHECK_FALSE(isStreamOrderedAlloc(CUPTI_DRIVER_TRACE_CBID_cuMemCreate));
  CHECK_FALSE(isStreamOrderedAlloc(CUPTI_DRIVER_TRACE_CBID_cuMemFreeAsync));
}

TEST_CASE("free calls are keyed by the address they free", "[runtime_hook]") {
  CallInfo call;
  cuMemFree_v2_params device{0x7f0000001000};
  REQUIRE(allocationCallInfo(CUPTI_DRIVER_TRACE_CBID_cuMemFree_v2, &device, call));
  CHECK(call.key == 0x7f0000001000);
  CHECK(call.flags == (kCallFree | kKeyIsAddress));

  int pinned = 0;
  cuMemFreeHost_params host{&pinned};
  REQUIRE(allocationCallInfo(CUPTI_DRIVER_TRACE_CBID_cuMemFreeHost, &host, call));
  CHECK(call.key == reinterpret_cast<uint64_t>(&pinned));

  cuMemFreeAsync_params async{0x7f0000002000, nullptr};
  REQUIRE(allocationCallInfo(CUPTI_DRIVER_TRACE_CBID_cuMemFreeAsync, &async, call));
  CHECK(call.key == 0x7f0000002000);
  CHECK(call.flags == (kCallFree | kKeyIsAddress));
}

TEST_CASE("every listed entry point is described, in its direction", "[runtime_hook]") {
  // A listed call that is not described would have its callback enabled and learn nothing.
  alignas(16) unsigned char params[256];
  std::memset(params, 0, sizeof params);
  for (CUpti_CallbackId id : kAllocCalls) {
    CallInfo call;
    CAPTURE(id);
    REQUIRE(allocationCallInfo(id, params, call));
    CHECK(call.flags == (kCallAlloc | kKeyIsSize));
  }
  for (CUpti_CallbackId id : kFreeCalls) {
    CallInfo call;
    CAPTURE(id);
    REQUIRE(allocationCallInfo(id, params, call));
    CHECK(call.flags == (kCallFree | kKeyIsAddress));
  }
}

TEST_CASE("other calls and missing parameters describe nothing", "[runtime_hook]") {
  CallInfo call;
  cuMemAlloc_v2_params alloc{nullptr, 4096};
  CHECK_FALSE(allocationCallInfo(CUPTI_DRIVER_TRACE_CBID_cuMemAlloc_v2, nullptr, call));
  CHECK_FALSE(allocationCallInfo(CUPTI_DRIVER_TRACE_CBID_cuMemMap, &alloc, call));
  CHECK_FALSE(allocationCallInfo(CUPTI_DRIVER_TRACE_CBID_cuCtxDestroy_v2, &alloc, call));
  CHECK(call.flags == 0);
  CHECK(call.key == 0);
}

TEST_CASE("a MEMORY2 record takes thread and stack from its own call only", "[runtime_hook]") {
  CorrelationTable calls(4);
  calls.put(10, CallInfo{71, 4096, 5, kCallAlloc | kKeyIsSize});
  calls.put(11, CallInfo{72, 0x9000, 0, kCallFree | kKeyIsAddress});

  trace::Alloc joined = allocRecord(10, 0x1000, 4096);
  CHECK(joinCall(calls, joined, true) == Join::kJoined);
  CHECK(joined.thread == 71);
  CHECK(joined.stack == 5);

  trace::Free free;
  free.correlation = 11;
  free.address = 0x9000;
  free.size = 4096;
  CHECK(joinCall(calls, free, false) == Join::kJoined);
  CHECK(free.thread == 72);
  CHECK(free.stack == trace::kNoId);

  // Another call's record under a stale id (its size disagrees), or no call at all: untouched.
  trace::Alloc stale = allocRecord(10, 0x2000, 8192);
  CHECK(joinCall(calls, stale, true) == Join::kNoCall);
  CHECK(stale.thread == 0);
  CHECK(stale.stack == trace::kNoId);
  trace::Alloc unknown = allocRecord(12, 0x3000, 4096);
  CHECK(joinCall(calls, unknown, true) == Join::kNoCall);
  trace::Alloc uncorrelated = allocRecord(0, 0x3000, 4096);
  CHECK(joinCall(calls, uncorrelated, true) == Join::kNoCall);
  // The right id but the wrong direction.
  trace::Alloc backwards = allocRecord(11, 0x9000, 4096);
  CHECK(joinCall(calls, backwards, true) == Join::kNoCall);
}

TEST_CASE("a MEMORY2 record of a VMM call is a duplicate", "[runtime_hook]") {
  CorrelationTable calls(4);
  calls.put(20, CallInfo{73, 0x7f00000000, 0, kCallVmm | kCallAlloc | kKeyIsAddress});
  trace::Alloc mapped = allocRecord(20, 0x7f00000000, 2 << 20);
  CHECK(joinCall(calls, mapped, true) == Join::kVmmDuplicate);
  CHECK(mapped.thread == 0);  // dropped, not joined
  // A record at another address under the VMM call's id is not its duplicate.
  trace::Alloc other = allocRecord(20, 0x1000, 2 << 20);
  CHECK(joinCall(calls, other, true) == Join::kNoCall);
}
