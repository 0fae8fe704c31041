// NVTX range, mark and naming callbacks -> markers.
#define NVTX_NO_IMPL
#include "runtime_hook/nvtx_markers.h"

#include <nvtx3/nvToolsExt.h>
// After the NVTX types it describes:
#include <generated_nvtx_meta.h>

namespace memfloor::hook {

namespace {

uint64_t handleOf(const void* handle) { return reinterpret_cast<uint64_t>(handle); }

std::string ascii(const char* text) { return text != nullptr ? text : ""; }

uint64_t returnedRangeId(const CUpti_NvtxData& data) {
  return data.functionReturnValue != nullptr
             ? *static_cast<const nvtxRangeId_t*>(data.functionReturnValue)
             : 0;
}

}  // namespace

std::string fromWide(const wchar_t* text) {
  std::string out;
  if (text == nullptr) return out;
  for (; *text != 0 && out.size() < 4096; ++text) {
    out += (*text > 0 && *text < 128) ? static_cast<char>(*text) : '?';
  }
  return out;
}

std::string NvtxMarkers::message(const void* attributes) const {
  const auto* a = static_cast<const nvtxEventAttributes_t*>(attributes);
  if (a == nullptr) return {};
  switch (a->messageType) {
    case NVTX_MESSAGE_TYPE_ASCII:
      return ascii(a->message.ascii);
    case NVTX_MESSAGE_TYPE_UNICODE:
      return fromWide(a->message.unicode);
    case NVTX_MESSAGE_TYPE_REGISTERED: {
      std::lock_guard<std::mutex> lock(mutex_);
      auto it = strings_.find(handleOf(a->message.registered));
      return it != strings_.end() ? it->second : std::string();
    }
    default:
      return {};
  }
}

std::string NvtxMarkers::domainName(uint64_t handle) const {
  if (handle == 0) return {};  // the default domain
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = domains_.find(handle);
  return it != domains_.end() ? it->second : std::string();
}

bool NvtxMarkers::decode(CUpti_CallbackId cbid, const CUpti_NvtxData& data, MarkerCall& out) {
  const void* params = data.functionParams;
  if (params == nullptr) return false;
  auto marker = [&out, this](trace::MarkerType type, std::string name, uint64_t id,
                             const void* domain) {
    out.type = type;
    out.name = std::move(name);
    out.id = id;
    out.domain = domainName(handleOf(domain));
    return true;
  };
  using MT = trace::MarkerType;
  switch (cbid) {
    case CUPTI_CBID_NVTX_nvtxRangePushA:
      return marker(MT::kPush, ascii(static_cast<const nvtxRangePushA_params*>(params)->message), 0,
                    nullptr);
    case CUPTI_CBID_NVTX_nvtxRangePushW:
      return marker(MT::kPush, fromWide(static_cast<const nvtxRangePushW_params*>(params)->message),
                    0, nullptr);
    case CUPTI_CBID_NVTX_nvtxRangePushEx:
      return marker(MT::kPush,
                    message(static_cast<const nvtxRangePushEx_params*>(params)->eventAttrib), 0,
                    nullptr);
    case CUPTI_CBID_NVTX_nvtxDomainRangePushEx: {
      const auto* p = static_cast<const nvtxDomainRangePushEx_params*>(params);
      return marker(MT::kPush, message(p->core.eventAttrib), 0, p->domain);
    }
    case CUPTI_CBID_NVTX_nvtxRangePop:
      return marker(MT::kPop, {}, 0, nullptr);
    case CUPTI_CBID_NVTX_nvtxDomainRangePop:
      return marker(MT::kPop, {}, 0, static_cast<const nvtxDomainRangePop_params*>(params)->domain);
    case CUPTI_CBID_NVTX_nvtxRangeStartA:
      return marker(MT::kStart, ascii(static_cast<const nvtxRangeStartA_params*>(params)->message),
                    returnedRangeId(data), nullptr);
    case CUPTI_CBID_NVTX_nvtxRangeStartW:
      return marker(MT::kStart,
                    fromWide(static_cast<const nvtxRangeStartW_params*>(params)->message),
                    returnedRangeId(data), nullptr);
    case CUPTI_CBID_NVTX_nvtxRangeStartEx:
      return marker(MT::kStart,
                    message(static_cast<const nvtxRangeStartEx_params*>(params)->eventAttrib),
                    returnedRangeId(data), nullptr);
    case CUPTI_CBID_NVTX_nvtxDomainRangeStartEx: {
      const auto* p = static_cast<const nvtxDomainRangeStartEx_params*>(params);
      return marker(MT::kStart, message(p->core.eventAttrib), returnedRangeId(data), p->domain);
    }
    case CUPTI_CBID_NVTX_nvtxRangeEnd:
      return marker(MT::kEnd, {}, static_cast<const nvtxRangeEnd_params*>(params)->id, nullptr);
    case CUPTI_CBID_NVTX_nvtxDomainRangeEnd: {
      const auto* p = static_cast<const nvtxDomainRangeEnd_params*>(params);
      return marker(MT::kEnd, {}, p->core.id, p->domain);
    }
    case CUPTI_CBID_NVTX_nvtxMarkA:
      return marker(MT::kInstant, ascii(static_cast<const nvtxMarkA_params*>(params)->message), 0,
                    nullptr);
    case CUPTI_CBID_NVTX_nvtxMarkEx:
      return marker(MT::kInstant,
                    message(static_cast<const nvtxMarkEx_params*>(params)->eventAttrib), 0,
                    nullptr);
    case CUPTI_CBID_NVTX_nvtxDomainMarkEx: {
      const auto* p = static_cast<const nvtxDomainMarkEx_params*>(params);
      return marker(MT::kInstant, message(p->core.eventAttrib), 0, p->domain);
    }
    case CUPTI_CBID_NVTX_nvtxDomainCreateA: {
      const auto* p = static_cast<const nvtxDomainCreateA_params*>(params);
      const auto* handle = static_cast<const nvtxDomainHandle_t*>(data.functionReturnValue);
      if (handle == nullptr || p->name == nullptr) return false;
      std::lock_guard<std::mutex> lock(mutex_);
      domains_[handleOf(*handle)] = p->name;
      return false;
    }
    case CUPTI_CBID_NVTX_nvtxDomainRegisterStringA: {
      const auto* p = static_cast<const nvtxDomainRegisterStringA_params*>(params);
      const auto* handle = static_cast<const nvtxStringHandle_t*>(data.functionReturnValue);
      if (handle == nullptr || p->string == nullptr) return false;
      std::lock_guard<std::mutex> lock(mutex_);
      strings_[handleOf(*handle)] = p->string;
      return false;
    }
    default:
      return false;
  }
}

}  // namespace memfloor::hook
