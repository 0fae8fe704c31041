// NVTX callbacks as markers, from hand-built callback data: names, domains, registered strings,
// range ids.
#define NVTX_NO_IMPL
#include "runtime_hook/nvtx_markers.h"

#include <nvtx3/nvToolsExt.h>
// After the NVTX types it describes:
#include <generated_nvtx_meta.h>

#include <catch2/catch.hpp>
#include <cstdint>
#include <string>

using namespace memfloor;
using namespace memfloor::hook;
using MT = trace::MarkerType;

namespace {

CUpti_NvtxData callData(const void* params, const void* returned = nullptr) {
  return CUpti_NvtxData{"nvtx", params, returned};
}

nvtxEventAttributes_t asciiAttributes(const char* text) {
  nvtxEventAttributes_t a{};
  a.version = NVTX_VERSION;
  a.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
  a.messageType = NVTX_MESSAGE_TYPE_ASCII;
  a.message.ascii = text;
  return a;
}

template <class Handle>
Handle fakeHandle(uintptr_t value) {
  return reinterpret_cast<Handle>(value);
}

// Creates a domain named `name` under `handle` through its callback.
void createDomain(NvtxMarkers& nvtx, nvtxDomainHandle_t handle, const char* name) {
  nvtxDomainCreateA_params p{name};
  MarkerCall unused;
  CHECK_FALSE(nvtx.decode(CUPTI_CBID_NVTX_nvtxDomainCreateA, callData(&p, &handle), unused));
}

}  // namespace

TEST_CASE("push, pop and mark of the default domain", "[runtime_hook]") {
  NvtxMarkers nvtx;
  MarkerCall m;
  nvtxRangePushA_params push{"iteration"};
  REQUIRE(nvtx.decode(CUPTI_CBID_NVTX_nvtxRangePushA, callData(&push), m));
  CHECK(m.type == MT::kPush);
  CHECK(m.name == "iteration");
  CHECK(m.id == 0);
  CHECK(m.domain.empty());

  REQUIRE(nvtx.decode(CUPTI_CBID_NVTX_nvtxRangePop, callData(&push), m));
  CHECK(m.type == MT::kPop);
  CHECK(m.name.empty());

  nvtxMarkA_params mark{"checkpoint"};
  REQUIRE(nvtx.decode(CUPTI_CBID_NVTX_nvtxMarkA, callData(&mark), m));
  CHECK(m.type == MT::kInstant);
  CHECK(m.name == "checkpoint");

  nvtxRangePushA_params unnamed{nullptr};
  REQUIRE(nvtx.decode(CUPTI_CBID_NVTX_nvtxRangePushA, callData(&unnamed), m));
  CHECK(m.name.empty());
}

TEST_CASE("wide names become ASCII", "[runtime_hook]") {
  CHECK(fromWide(L"step 7") == "step 7");
  CHECK(fromWide(L"\u00e9t\u00e9") == "?t?");
  CHECK(fromWide(nullptr).empty());
  std::wstring long_name(5000, L'x');
  CHECK(fromWide(long_name.c_str()).size() == 4096);

  NvtxMarkers nvtx;
  MarkerCall m;
  nvtxRangePushW_params push{L"forward"};
  REQUIRE(nvtx.decode(CUPTI_CBID_NVTX_nvtxRangePushW, callData(&push), m));
  CHECK(m.type == MT::kPush);
  CHECK(m.name == "forward");
}

TEST_CASE("start and end carry the range id", "[runtime_hook]") {
  NvtxMarkers nvtx;
  MarkerCall m;
  nvtxRangeStartA_params start{"epoch"};
  nvtxRangeId_t id = 77;
  REQUIRE(nvtx.decode(CUPTI_CBID_NVTX_nvtxRangeStartA, callData(&start, &id), m));
  CHECK(m.type == MT::kStart);
  CHECK(m.name == "epoch");
  CHECK(m.id == 77);

  nvtxRangeEnd_params end{77};
  REQUIRE(nvtx.decode(CUPTI_CBID_NVTX_nvtxRangeEnd, callData(&end), m));
  CHECK(m.type == MT::kEnd);
  CHECK(m.id == 77);
  CHECK(m.name.empty());

  // Without the returned id (no return value in the callback) the start has id 0.
  REQUIRE(nvtx.decode(CUPTI_CBID_NVTX_nvtxRangeStartA, callData(&start), m));
  CHECK(m.id == 0);

  nvtxEventAttributes_t attributes = asciiAttributes("warmup");
  nvtxRangeStartEx_params start_ex{&attributes};
  nvtxRangeId_t id_ex = 78;
  REQUIRE(nvtx.decode(CUPTI_CBID_NVTX_nvtxRangeStartEx, callData(&start_ex, &id_ex), m));
  CHECK(m.name == "warmup");
  CHECK(m.id == 78);
}

TEST_CASE("domain calls carry the name the domain was created with", "[runtime_hook]") {
  NvtxMarkers nvtx;
  auto train = fakeHandle<nvtxDomainHandle_t>(0x1000);
  createDomain(nvtx, train, "train");

  MarkerCall m;
  nvtxEventAttributes_t attributes = asciiAttributes("step");
  nvtxDomainRangePushEx_params push{train, {&attributes}};
  REQUIRE(nvtx.decode(CUPTI_CBID_NVTX_nvtxDomainRangePushEx, callData(&push), m));
  CHECK(m.type == MT::kPush);
  CHECK(m.name == "step");
  CHECK(m.domain == "train");

  nvtxDomainRangePop_params pop{train};
  REQUIRE(nvtx.decode(CUPTI_CBID_NVTX_nvtxDomainRangePop, callData(&pop), m));
  CHECK(m.type == MT::kPop);
  CHECK(m.domain == "train");

  nvtxDomainRangeStartEx_params start{train, {&attributes}};
  nvtxRangeId_t id = 5;
  REQUIRE(nvtx.decode(CUPTI_CBID_NVTX_nvtxDomainRangeStartEx, callData(&start, &id), m));
  CHECK(m.type == MT::kStart);
  CHECK(m.id == 5);
  CHECK(m.domain == "train");

  nvtxDomainRangeEnd_params end{train, {5}};
  REQUIRE(nvtx.decode(CUPTI_CBID_NVTX_nvtxDomainRangeEnd, callData(&end), m));
  CHECK(m.type == MT::kEnd);
  CHECK(m.id == 5);
  CHECK(m.domain == "train");

  nvtxDomainMarkEx_params mark{train, {&attributes}};
  REQUIRE(nvtx.decode(CUPTI_CBID_NVTX_nvtxDomainMarkEx, callData(&mark), m));
  CHECK(m.type == MT::kInstant);
  CHECK(m.domain == "train");

  // A domain never seen created, and the default (null) domain, have no name.
  nvtxDomainRangePop_params unknown{fakeHandle<nvtxDomainHandle_t>(0x2000)};
  REQUIRE(nvtx.decode(CUPTI_CBID_NVTX_nvtxDomainRangePop, callData(&unknown), m));
  CHECK(m.domain.empty());
  nvtxDomainRangePop_params default_domain{nullptr};
  REQUIRE(nvtx.decode(CUPTI_CBID_NVTX_nvtxDomainRangePop, callData(&default_domain), m));
  CHECK(m.domain.empty());
}

TEST_CASE("registered strings name the ranges that use them", "[runtime_hook]") {
  NvtxMarkers nvtx;
  auto train = fakeHandle<nvtxDomainHandle_t>(0x1000);
  auto registered = fakeHandle<nvtxStringHandle_t>(0x3000);
  nvtxDomainRegisterStringA_params reg{train, "optimizer step"};
  MarkerCall m;
  CHECK_FALSE(
      nvtx.decode(CUPTI_CBID_NVTX_nvtxDomainRegisterStringA, callData(&reg, &registered), m));

  nvtxEventAttributes_t attributes{};
  attributes.version = NVTX_VERSION;
  attributes.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
  attributes.messageType = NVTX_MESSAGE_TYPE_REGISTERED;
  attributes.message.registered = registered;
  nvtxRangePushEx_params push{&attributes};
  REQUIRE(nvtx.decode(CUPTI_CBID_NVTX_nvtxRangePushEx, callData(&push), m));
  CHECK(m.name == "optimizer step");

  attributes.message.registered = fakeHandle<nvtxStringHandle_t>(0x4000);  // never registered
  REQUIRE(nvtx.decode(CUPTI_CBID_NVTX_nvtxRangePushEx, callData(&push), m));
  CHECK(m.name.empty());

  attributes.messageType = NVTX_MESSAGE_TYPE_UNICODE;
  attributes.message.unicode = L"backward";
  nvtxMarkEx_params mark{&attributes};
  REQUIRE(nvtx.decode(CUPTI_CBID_NVTX_nvtxMarkEx, callData(&mark), m));
  CHECK(m.type == MT::kInstant);
  CHECK(m.name == "backward");

  nvtxRangePushEx_params no_attributes{nullptr};
  REQUIRE(nvtx.decode(CUPTI_CBID_NVTX_nvtxRangePushEx, callData(&no_attributes), m));
  CHECK(m.name.empty());
}

TEST_CASE("naming calls without a result, other calls and no parameters write nothing",
          "[runtime_hook]") {
  NvtxMarkers nvtx;
  MarkerCall m;
  nvtxDomainCreateA_params create{"lost"};
  CHECK_FALSE(nvtx.decode(CUPTI_CBID_NVTX_nvtxDomainCreateA, callData(&create), m));
  CHECK_FALSE(nvtx.decode(CUPTI_CBID_NVTX_nvtxRangePushA, callData(nullptr), m));
  nvtxDomainDestroy_params destroy{nullptr};
  CHECK_FALSE(nvtx.decode(CUPTI_CBID_NVTX_nvtxDomainDestroy, callData(&destroy), m));

  // The domain created without a returned handle was not remembered under any handle.
  auto handle = fakeHandle<nvtxDomainHandle_t>(0x1000);
  nvtxDomainRangePop_params pop{handle};
  REQUIRE(nvtx.decode(CUPTI_CBID_NVTX_nvtxDomainRangePop, callData(&pop), m));
  CHECK(m.domain.empty());
}
