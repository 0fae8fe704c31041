// Callbacks into records, without a GPU: hand-built driver and NVTX callback data through the
// recorder into an in-memory trace, read back.
#define NVTX_NO_IMPL
#include "runtime_hook/recorder.h"

#include <nvtx3/nvToolsExt.h>
// After the NVTX types it describes:
#include <generated_nvtx_meta.h>

#include <catch2/catch.hpp>
#include <cstring>
#include <map>
#include <utility>
#include <vector>

#include "runtime_hook/call_stamp.h"
#include "runtime_hook/companion_calls.h"
#include "tests/runtime_hook/test_support.h"

using namespace memfloor;
using hook::test::readAll;
using hook::test::SharedSink;

namespace {

CUpti_CallbackData driverCall(CUpti_ApiCallbackSite site, const void* params, CUresult* result,
                              uint32_t correlation) {
  CUpti_CallbackData data;
  std::memset(&data, 0, sizeof data);
  data.callbackSite = site;
  data.functionParams = params;
  data.functionReturnValue = result;
  data.correlationId = correlation;
  return data;
}

// What a trace holds, with string ids resolved.
struct Written {
  std::vector<trace::Alloc> allocs;
  std::vector<trace::Free> frees;
  std::vector<trace::Marker> markers;
  std::vector<trace::Census> censuses;
  std::vector<trace::Held> held;
  std::vector<trace::Step> steps;
  std::vector<trace::Property> properties;
  std::map<trace::StringId, std::string> strings;
  size_t stacks = 0;

  explicit Written(const std::vector<uint8_t>& bytes) {
    trace::Ending ending{};
    for (const trace::Record& r : readAll(bytes, ending)) {
      if (auto* s = std::get_if<trace::StringDef>(&r)) strings[s->id] = s->text;
      if (auto* a = std::get_if<trace::Alloc>(&r)) allocs.push_back(*a);
      if (auto* f = std::get_if<trace::Free>(&r)) frees.push_back(*f);
      if (auto* m = std::get_if<trace::Marker>(&r)) markers.push_back(*m);
      if (auto* c = std::get_if<trace::Census>(&r)) censuses.push_back(*c);
      if (auto* h = std::get_if<trace::Held>(&r)) held.push_back(*h);
      if (auto* s = std::get_if<trace::Step>(&r)) steps.push_back(*s);
      if (auto* p = std::get_if<trace::Property>(&r)) properties.push_back(*p);
      if (std::holds_alternative<trace::StackDef>(r)) ++stacks;
    }
  }
  std::string text(trace::StringId id) const {
    auto it = strings.find(id);
    return it != strings.end() ? it->second : std::string();
  }
};

// Records what body does with a recorder of the given stack mode; returns what was written.
template <class Body>
Written record(hook::StackMode stacks, Body body) {
  std::vector<uint8_t> bytes;
  {
    hook::TraceOutput out(std::make_unique<SharedSink>(bytes), 1 << 16);
    REQUIRE(out.begin());
    hook::Config config;
    config.stacks = stacks;
    hook::Recorder recorder(config, out);
    body(recorder);
    REQUIRE(out.finish(1));
  }
  return Written(bytes);
}

}  // namespace

TEST_CASE("a VMM mapping is written from its callbacks, with device and stack", "[runtime_hook]") {
  CUresult ok = CUDA_SUCCESS;
  CUresult failed = CUDA_ERROR_OUT_OF_MEMORY;
  Written w = record(hook::StackMode::kNative, [&](hook::Recorder& r) {
    CUmemGenericAllocationHandle handle = 0x51;
    CUmemAllocationProp prop{};
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = 2;
    cuMemCreate_params create{&handle, 2 << 20, &prop, 0};
    r.onDriverCall(CUPTI_DRIVER_TRACE_CBID_cuMemCreate,
                   driverCall(CUPTI_API_EXIT, &create, &ok, 1));
    cuMemMap_params map{0x7f0000000000, 2 << 20, 0, handle, 0};
    r.onDriverCall(CUPTI_DRIVER_TRACE_CBID_cuMemMap, driverCall(CUPTI_API_ENTER, &map, &ok, 2));
    r.onDriverCall(CUPTI_DRIVER_TRACE_CBID_cuMemMap, driverCall(CUPTI_API_EXIT, &map, &ok, 2));
    // A map that failed maps nothing.
    cuMemMap_params refused{0x7f0000400000, 2 << 20, 0, handle, 0};
    r.onDriverCall(CUPTI_DRIVER_TRACE_CBID_cuMemMap,
                   driverCall(CUPTI_API_EXIT, &refused, &failed, 3));
    cuMemUnmap_params unmap{0x7f0000000000, 2 << 20};
    r.onDriverCall(CUPTI_DRIVER_TRACE_CBID_cuMemUnmap, driverCall(CUPTI_API_EXIT, &unmap, &ok, 4));
  });
  REQUIRE(w.allocs.size() == 1);
  const trace::Alloc& alloc = w.allocs[0];
  CHECK(alloc.address == 0x7f0000000000);
  CHECK(alloc.size == (2 << 20));
  CHECK(alloc.device == 2);
  CHECK(alloc.flags == trace::kMemoryFlagVmm);
  CHECK(alloc.correlation == 2);
  CHECK(alloc.thread != 0);
  CHECK(alloc.stack != trace::kNoId);
  CHECK(w.stacks >= 1);  // defined in the trace, ahead of the record
  REQUIRE(w.frees.size() == 1);
  CHECK(w.frees[0].address == 0x7f0000000000);
  CHECK(w.frees[0].device == 2);
  CHECK(w.frees[0].correlation == 4);
  CHECK(w.frees[0].thread == alloc.thread);
}

TEST_CASE("without stacks a VMM mapping has none", "[runtime_hook]") {
  CUresult ok = CUDA_SUCCESS;
  Written w = record(hook::StackMode::kNone, [&](hook::Recorder& r) {
    cuMemMap_params map{0x10000000, 2 << 20, 0, 0x77, 0};
    r.onDriverCall(CUPTI_DRIVER_TRACE_CBID_cuMemMap, driverCall(CUPTI_API_EXIT, &map, &ok, 9));
  });
  REQUIRE(w.allocs.size() == 1);
  CHECK(w.allocs[0].stack == trace::kNoId);
  CHECK(w.allocs[0].device == 0);  // a handle never seen created
  CHECK(w.stacks == 0);
}

TEST_CASE("allocation callbacks write nothing by themselves", "[runtime_hook]") {
  // They only keep thread and stack for the MEMORY2 record, which comes in a CUPTI buffer.
  CUresult ok = CUDA_SUCCESS;
  Written w = record(hook::StackMode::kNative, [&](hook::Recorder& r) {
    cuMemAlloc_v2_params alloc{nullptr, 4096};
    r.onDriverCall(CUPTI_DRIVER_TRACE_CBID_cuMemAlloc_v2,
                   driverCall(CUPTI_API_ENTER, &alloc, &ok, 1));
    r.onDriverCall(CUPTI_DRIVER_TRACE_CBID_cuMemAlloc_v2,
                   driverCall(CUPTI_API_EXIT, &alloc, &ok, 1));
  });
  CHECK(w.allocs.empty());
  CHECK(w.frees.empty());
}

TEST_CASE("NVTX ranges and C API markers are written with names and domains", "[runtime_hook]") {
  Written w = record(hook::StackMode::kNone, [&](hook::Recorder& r) {
    auto domain = reinterpret_cast<nvtxDomainHandle_t>(uintptr_t{0x1000});
    nvtxDomainCreateA_params create{"train"};
    r.onNvtx(CUPTI_CBID_NVTX_nvtxDomainCreateA, CUpti_NvtxData{"", &create, &domain});
    nvtxEventAttributes_t attributes{};
    attributes.version = NVTX_VERSION;
    attributes.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
    attributes.messageType = NVTX_MESSAGE_TYPE_ASCII;
    attributes.message.ascii = "step";
    nvtxDomainRangePushEx_params push{domain, {&attributes}};
    r.onNvtx(CUPTI_CBID_NVTX_nvtxDomainRangePushEx, CUpti_NvtxData{"", &push, nullptr});
    nvtxDomainRangePop_params pop{domain};
    r.onNvtx(CUPTI_CBID_NVTX_nvtxDomainRangePop, CUpti_NvtxData{"", &pop, nullptr});
    hook::MarkerCall api;
    REQUIRE(hook::apiMarkerCall(static_cast<int>(trace::MarkerType::kStart), "epoch", 3, api));
    r.writeMarker(api);
  });
  REQUIRE(w.markers.size() == 3);
  CHECK(w.markers[0].type == trace::MarkerType::kPush);
  CHECK(w.text(w.markers[0].name) == "step");
  CHECK(w.text(w.markers[0].domain) == "train");
  CHECK(w.markers[0].thread != 0);
  CHECK(w.markers[1].type == trace::MarkerType::kPop);
  CHECK(w.markers[1].name == trace::kNoId);
  CHECK(w.text(w.markers[1].domain) == "train");
  CHECK(w.markers[2].type == trace::MarkerType::kStart);
  CHECK(w.markers[2].id == 3);
  CHECK(w.text(w.markers[2].name) == "epoch");
  CHECK(w.text(w.markers[2].domain) == "memfloor");
}

TEST_CASE("a companion's blocks are written with their Python stacks, in any stack mode",
          "[runtime_hook]") {
  trace::StackId stack = trace::kNoId;
  uint64_t written = 0;
  Written w = record(hook::StackMode::kNone, [&](hook::Recorder& r) {
    memfloor_python_frame_v1 frames[] = {{"train.py", "forward", 21, 0},
                                         {"train.py", "<module>", 50, 0}};
    stack = r.internPythonStack(frames, 2);
    CHECK(r.internPythonStack(frames, 2) == stack);
    // Wall-clock times of today (PyTorch's are microseconds since the epoch, in ns).
    constexpr uint64_t kNow = 1'796'000'000'000'000'000ull;
    memfloor_block_event_v1 events[3] = {};
    events[0] = {kNow + 1000, 0x7000, 512, 0, 0, stack, MEMFLOOR_BLOCK_ALLOC};
    events[1] = {kNow + 2000, 0x7000, 512, 0, 0, stack, MEMFLOOR_BLOCK_FREE};
    events[2] = {kNow + 3000, 0x7000, 512, 0, 0, 0, 42};  // an unknown type: skipped
    written = r.writeBlocks(events, 3);
    CHECK(r.writeBlocks(nullptr, 3) == 0);
  });
  CHECK(written == 2);
  CHECK(stack != trace::kNoId);
  CHECK(w.stacks == 1);
  REQUIRE(w.allocs.size() == 1);
  CHECK(w.allocs[0].kind == trace::MemoryKind::kBlock);
  CHECK(w.allocs[0].stack == stack);
  CHECK(w.allocs[0].size == 512);
  REQUIRE(w.frees.size() == 1);
  CHECK(w.frees[0].kind == trace::MemoryKind::kBlock);
  CHECK(w.frees[0].timestamp - w.allocs[0].timestamp == 1000);  // one offset for a whole batch
}

TEST_CASE("a companion's census is written with its storages, on the census's time and device",
          "[runtime_hook]") {
  uint64_t written = 0;
  Written w = record(hook::StackMode::kNone, [&](hook::Recorder& r) {
    constexpr uint64_t kNow = 1'796'000'000'000'000'000ull;
    const memfloor_census_header_v1 census{kNow, 5000, 120'000'000, 1, 4, 0, 0};
    const memfloor_held_v1 held[3] = {
        {0x7000, 4096, "model.lin.weight", "", 9, 1, MEMFLOOR_HELD_PARAMETER, 0},
        {0x9000, 1 << 20, "model.cache.tensor", "MulBackward0 > GeluBackward0", 9, 2, 0, 0},
        {0xa000, 512, nullptr, nullptr, 9, 0, 77, 0},  // no strings, no holders, unknown role
    };
    written = r.writeCensus(&census, held, 3);
    CHECK(r.writeCensus(nullptr, held, 3) == 0);
    CHECK(r.writeCensus(&census, nullptr, 3) == 0);
  });
  CHECK(written == 4);
  REQUIRE(w.censuses.size() == 1);
  const trace::Census& c = w.censuses[0];
  CHECK(c.objects == 5000);
  CHECK(c.duration_ns == 120'000'000);
  CHECK(c.storages == 3);
  CHECK(c.device == 1);
  CHECK(c.step == 4);
  CHECK_FALSE(c.complete);
  REQUIRE(w.held.size() == 3);
  for (const trace::Held& h : w.held) {
    CHECK(h.timestamp == c.timestamp);
    CHECK(h.device == 1);  // the census's, not the storage's
  }
  CHECK(w.text(w.held[0].path) == "model.lin.weight");
  CHECK(w.held[0].via == trace::kNoId);
  CHECK(w.held[0].role == trace::HeldRole::kParameter);
  CHECK(w.text(w.held[1].via) == "MulBackward0 > GeluBackward0");
  CHECK(w.held[1].holders == 2);
  CHECK(w.held[1].size == 1 << 20);
  CHECK(w.text(w.held[2].path).empty());
  CHECK(w.held[2].holders == 1);
  CHECK(w.held[2].role == trace::HeldRole::kOther);
}

TEST_CASE("a companion's step ends are written on the calling thread, in CUPTI's time",
          "[runtime_hook]") {
  uint32_t begin = 0, end = 0, unknown = 0, none = 0;
  constexpr uint64_t kNow = 1'796'000'000'000'000'000ull;
  hook::ClockPair before;
  Written w = record(hook::StackMode::kNone, [&](hook::Recorder& r) {
    before = hook::clockPairNow();
    const memfloor_step_event_v1 first{kNow, 3, 7, MEMFLOOR_STEP_BEGIN, 0};  // a begin has none
    const memfloor_step_event_v1 last{kNow + 5000, 3, 2, MEMFLOOR_STEP_END, 0};
    const memfloor_step_event_v1 odd{kNow, 4, 0, 2, 0};
    begin = r.writeStep(&first);
    end = r.writeStep(&last);
    unknown = r.writeStep(&odd);
    none = r.writeStep(nullptr);
  });
  CHECK(begin == 1);
  CHECK(end == 1);
  CHECK(unknown == 0);
  CHECK(none == 0);
  REQUIRE(w.steps.size() == 2);
  CHECK(w.steps[0].phase == trace::StepPhase::kBegin);
  CHECK(w.steps[0].step == 3);
  CHECK(w.steps[0].optimizer_steps == 0);
  CHECK(w.steps[1].phase == trace::StepPhase::kEnd);
  CHECK(w.steps[1].optimizer_steps == 2);
  // Each call reads its own pair of clocks, and a thread preempted between the pair's two readings
  // moves the offset by as long as it waited (over a millisecond on a loaded machine): a second
  // either way, still far from a wall-clock time written as it is.
  constexpr int64_t kSecond = 1'000'000'000;
  for (const auto& [written, unix_ns] :
       {std::pair{w.steps[0].timestamp, kNow}, std::pair{w.steps[1].timestamp, kNow + 5000}}) {
    const int64_t off = static_cast<int64_t>(written - hook::toCuptiTime(unix_ns, before));
    CHECK(off > -kSecond);
    CHECK(off < kSecond);
  }
  CHECK(w.steps[0].thread == hook::osThreadId());
  CHECK(w.steps[0].thread != 0);
}

TEST_CASE("A property the companion learned is written with its key and value", "[runtime_hook]") {
  uint32_t written = 0;
  Written w = record(hook::StackMode::kNone, [&](hook::Recorder& r) {
    written = r.writeProperty("python.compiled:/tmp/torchinductor_u/ab/cab.py", "Net.forward");
  });
  CHECK(written == 1);
  REQUIRE(w.properties.size() == 1);
  CHECK(w.text(w.properties[0].key) == "python.compiled:/tmp/torchinductor_u/ab/cab.py");
  CHECK(w.text(w.properties[0].value) == "Net.forward");
}
