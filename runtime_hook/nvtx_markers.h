// NVTX callbacks as markers: the names NVTX hands out handles for (domains, registered strings),
// kept under a lock of their own, and each range or mark call turned into the marker it stands for.
#pragma once

#include <cupti.h>

#include <cstdint>
#include <mutex>
#include <string>
#include <unordered_map>

#include "runtime_hook/marker_call.h"

namespace memfloor::hook {

// An NVTX wide string as ASCII ('?' for anything else), at most 4096 characters; empty for null.
std::string fromWide(const wchar_t* text);

class NvtxMarkers {
 public:
  // One NVTX callback (CUPTI_CB_DOMAIN_NVTX). True with the marker to write for a push, pop,
  // start, end or mark; false for a call that only names something (nvtxDomainCreateA,
  // nvtxDomainRegisterStringA: remembered for later markers), any other call, or no parameters.
  bool decode(CUpti_CallbackId cbid, const CUpti_NvtxData& data, MarkerCall& out);

 private:
  // Message text of an nvtxEventAttributes_t (ascii, unicode or a registered string).
  std::string message(const void* attributes) const;
  std::string domainName(uint64_t handle) const;

  mutable std::mutex mutex_;  // guards both maps; held for a lookup only, never with another lock
  std::unordered_map<uint64_t, std::string> domains_;  // nvtxDomainHandle_t -> name
  std::unordered_map<uint64_t, std::string> strings_;  // nvtxStringHandle_t -> text
};

}  // namespace memfloor::hook
