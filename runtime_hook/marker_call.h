// A marker as a call made it (an NVTX range or mark, or the markers C API), before the hook stamps
// it with time and thread and writes it.
#pragma once

#include <cstdint>
#include <string>

#include "trace/records.h"

namespace memfloor::hook {

struct MarkerCall {
  trace::MarkerType type = trace::MarkerType::kPush;
  std::string name;    // empty for pop and end
  uint64_t id = 0;     // the range id of start/end, 0 for the others
  std::string domain;  // the NVTX domain's name (empty: the default domain), kApiMarkerDomain
};

// The domain of the C API's markers: it tells them apart from NVTX ranges.
inline constexpr const char* kApiMarkerDomain = "memfloor";

// memfloor_marker_v1's arguments (include/memfloor/markers.h): type is a trace::MarkerType value,
// name may be null. False for a type the trace does not know.
bool apiMarkerCall(int type, const char* name, uint64_t id, MarkerCall& out);

}  // namespace memfloor::hook
