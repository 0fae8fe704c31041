// VMM calls: what their entry keeps, and the Alloc/Free their successful exits stand for.
#include "runtime_hook/vmm_mappings.h"

#include <catch2/catch.hpp>

using namespace memfloor;
using namespace memfloor::hook;

namespace {

constexpr CallStamp kStamp{1000, 42, 7};

CUmemAllocationProp onDevice(int device) {
  CUmemAllocationProp prop{};
  prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
  prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  prop.location.id = device;
  return prop;
}

void create(VmmMappings& vmm, CUmemGenericAllocationHandle handle, const CUmemAllocationProp& prop,
            size_t size) {
  cuMemCreate_params p{&handle, size, &prop, 0};
  VmmRecord r = vmm.onSuccess(CUPTI_DRIVER_TRACE_CBID_cuMemCreate, &p, kStamp);
  CHECK(std::holds_alternative<std::monostate>(r));
}

trace::Alloc map(VmmMappings& vmm, CUdeviceptr ptr, size_t size,
                 CUmemGenericAllocationHandle handle) {
  cuMemMap_params p{ptr, size, 0, handle, 0};
  VmmRecord r = vmm.onSuccess(CUPTI_DRIVER_TRACE_CBID_cuMemMap, &p, kStamp);
  REQUIRE(std::holds_alternative<trace::Alloc>(r));
  return std::get<trace::Alloc>(r);
}

trace::Free unmap(VmmMappings& vmm, CUdeviceptr ptr, size_t size) {
  cuMemUnmap_params p{ptr, size};
  VmmRecord r = vmm.onSuccess(CUPTI_DRIVER_TRACE_CBID_cuMemUnmap, &p, kStamp);
  REQUIRE(std::holds_alternative<trace::Free>(r));
  return std::get<trace::Free>(r);
}

}  // namespace

TEST_CASE("a mapping is an Alloc on its handle's device and its unmap the Free", "[runtime_hook]") {
  VmmMappings vmm;
  create(vmm, 0x51, onDevice(3), 2 << 20);
  trace::Alloc alloc = map(vmm, 0x7f0000000000, 2 << 20, 0x51);
  CHECK(alloc.address == 0x7f0000000000);
  CHECK(alloc.size == (2 << 20));
  CHECK(alloc.device == 3);
  CHECK(alloc.kind == trace::MemoryKind::kDevice);
  CHECK(alloc.flags == trace::kMemoryFlagVmm);
  CHECK(alloc.timestamp == 1000);
  CHECK(alloc.thread == 42);
  CHECK(alloc.correlation == 7);
  CHECK(alloc.stack == trace::kNoId);  // the caller's
  CHECK(alloc.stream == 0);

  trace::Free free = unmap(vmm, 0x7f0000000000, 2 << 20);
  CHECK(free.address == 0x7f0000000000);
  CHECK(free.size == (2 << 20));
  CHECK(free.device == 3);
  CHECK(free.flags == trace::kMemoryFlagVmm);
  CHECK(free.kind == trace::MemoryKind::kDevice);
  CHECK(free.thread == 42);

  // The mapping is gone: a second unmap of the range no longer knows its device.
  CHECK(unmap(vmm, 0x7f0000000000, 2 << 20).device == 0);
}

TEST_CASE("a handle mapped twice is two mappings, each with its device", "[runtime_hook]") {
  VmmMappings vmm;
  create(vmm, 0x60, onDevice(1), 2 << 20);
  create(vmm, 0x61, onDevice(2), 2 << 20);
  CHECK(map(vmm, 0x10000000, 2 << 20, 0x60).device == 1);
  CHECK(map(vmm, 0x20000000, 2 << 20, 0x60).device == 1);
  CHECK(map(vmm, 0x30000000, 2 << 20, 0x61).device == 2);
  CHECK(unmap(vmm, 0x30000000, 2 << 20).device == 2);
  CHECK(unmap(vmm, 0x10000000, 2 << 20).device == 1);
  CHECK(unmap(vmm, 0x20000000, 2 << 20).device == 1);
}

TEST_CASE("a released or unknown handle maps on device 0", "[runtime_hook]") {
  VmmMappings vmm;
  create(vmm, 0x70, onDevice(5), 2 << 20);
  CHECK(map(vmm, 0x10000000, 2 << 20, 0x70).device == 5);
  cuMemRelease_params release{0x70};
  VmmRecord r = vmm.onSuccess(CUPTI_DRIVER_TRACE_CBID_cuMemRelease, &release, kStamp);
  CHECK(std::holds_alternative<std::monostate>(r));
  // The mapping made before the release keeps its device; a new one of the handle does not.
  CHECK(unmap(vmm, 0x10000000, 2 << 20).device == 5);
  CHECK(map(vmm, 0x20000000, 2 << 20, 0x70).device == 0);
  CHECK(map(vmm, 0x30000000, 2 << 20, 0x99).device == 0);

  // Memory created elsewhere than on a device counts as device 0.
  CUmemAllocationProp host = onDevice(4);
  host.location.type = CU_MEM_LOCATION_TYPE_HOST;
  create(vmm, 0x71, host, 2 << 20);
  CHECK(map(vmm, 0x40000000, 2 << 20, 0x71).device == 0);
}

TEST_CASE("VMM exits without what they need write nothing", "[runtime_hook]") {
  VmmMappings vmm;
  CHECK(std::holds_alternative<std::monostate>(
      vmm.onSuccess(CUPTI_DRIVER_TRACE_CBID_cuMemMap, nullptr, kStamp)));
  cuMemCreate_params no_handle{nullptr, 2 << 20, nullptr, 0};
  CHECK(std::holds_alternative<std::monostate>(
      vmm.onSuccess(CUPTI_DRIVER_TRACE_CBID_cuMemCreate, &no_handle, kStamp)));
  cuMemSetAccess_params access{0x10000000, 2 << 20, nullptr, 0};
  CHECK(std::holds_alternative<std::monostate>(
      vmm.onSuccess(CUPTI_DRIVER_TRACE_CBID_cuMemSetAccess, &access, kStamp)));
  cuMemAlloc_v2_params alloc{nullptr, 4096};
  CHECK(std::holds_alternative<std::monostate>(
      vmm.onSuccess(CUPTI_DRIVER_TRACE_CBID_cuMemAlloc_v2, &alloc, kStamp)));
}

TEST_CASE("a VMM call's entry says how to know its MEMORY2 duplicate", "[runtime_hook]") {
  CallInfo call;
  CUmemGenericAllocationHandle handle = 0;
  cuMemCreate_params create_p{&handle, 2 << 20, nullptr, 0};
  REQUIRE(vmmCallInfo(CUPTI_DRIVER_TRACE_CBID_cuMemCreate, &create_p, call));
  CHECK(call.key == (2 << 20));
  CHECK(call.flags == (kCallVmm | kCallAlloc | kKeyIsSize));

  cuMemMap_params map_p{0x10000000, 2 << 20, 0, 0x51, 0};
  REQUIRE(vmmCallInfo(CUPTI_DRIVER_TRACE_CBID_cuMemMap, &map_p, call));
  CHECK(call.key == 0x10000000);
  CHECK(call.flags == (kCallVmm | kCallAlloc | kKeyIsAddress));

  cuMemSetAccess_params access{0x20000000, 2 << 20, nullptr, 0};
  REQUIRE(vmmCallInfo(CUPTI_DRIVER_TRACE_CBID_cuMemSetAccess, &access, call));
  CHECK(call.key == 0x20000000);
  CHECK(call.flags == (kCallVmm | kCallAlloc | kKeyIsAddress));

  cuMemUnmap_params unmap_p{0x30000000, 2 << 20};
  REQUIRE(vmmCallInfo(CUPTI_DRIVER_TRACE_CBID_cuMemUnmap, &unmap_p, call));
  CHECK(call.key == 0x30000000);
  CHECK(call.flags == (kCallVmm | kCallFree | kKeyIsAddress));
  CHECK(call.thread == 0);  // the caller's

  CallInfo none;
  cuMemRelease_params release{0x51};
  CHECK_FALSE(vmmCallInfo(CUPTI_DRIVER_TRACE_CBID_cuMemRelease, &release, none));
  CHECK_FALSE(vmmCallInfo(CUPTI_DRIVER_TRACE_CBID_cuMemMap, nullptr, none));
  cuMemAlloc_v2_params alloc{nullptr, 4096};
  CHECK_FALSE(vmmCallInfo(CUPTI_DRIVER_TRACE_CBID_cuMemAlloc_v2, &alloc, none));
  CHECK(none.flags == 0);
}
