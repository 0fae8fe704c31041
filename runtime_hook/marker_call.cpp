// The markers C API's arguments as a marker.
#include "runtime_hook/marker_call.h"

namespace memfloor::hook {

bool apiMarkerCall(int type, const char* name, uint64_t id, MarkerCall& out) {
  if (type < 0 || type >= trace::kMarkerTypeCount) return false;
  out.type = static_cast<trace::MarkerType>(type);
  out.name = name != nullptr ? name : "";
  out.id = id;
  out.domain = kApiMarkerDomain;
  return true;
}

}  // namespace memfloor::hook
