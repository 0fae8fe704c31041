// Names of the report's enums, as written in report.json.
#include "reports/report.h"

#ifndef MEMFLOOR_VERSION
#define MEMFLOOR_VERSION "0.0.0"
#endif

namespace memfloor::reports {

std::string_view toolVersion() { return MEMFLOOR_VERSION; }

RetentionClass RetainedTally::dominant() const {
  if (inter_iteration.bytes >= leak.bytes && inter_iteration.bytes >= persistent.bytes) {
    return RetentionClass::kInterIteration;
  }
  return leak.bytes >= persistent.bytes ? RetentionClass::kLeak : RetentionClass::kPersistent;
}

std::string_view toString(RetentionClass c) {
  switch (c) {
    case RetentionClass::kInterIteration: return "inter_iteration";
    case RetentionClass::kLeak: return "leak";
    case RetentionClass::kPersistent: return "persistent";
  }
  return "unknown";
}

std::string_view toString(TrendVerdict v) {
  switch (v) {
    case TrendVerdict::kUnknown: return "unknown";
    case TrendVerdict::kStable: return "stable";
    case TrendVerdict::kGrowing: return "growing";
  }
  return "unknown";
}

std::string_view toString(IterationSource s) {
  return s == IterationSource::kMarkers ? "markers" : "unknown";
}

// The report's own vocabulary (snake_case, like every other JSON value), independent of how the
// trace's text form spells kinds.
std::string_view kindName(trace::MemoryKind kind) {
  switch (kind) {
    case trace::MemoryKind::kDevice: return "device";
    case trace::MemoryKind::kPinned: return "pinned";
    case trace::MemoryKind::kManaged: return "managed";
    case trace::MemoryKind::kDeviceStatic: return "device_static";
    case trace::MemoryKind::kPool: return "pool";
    case trace::MemoryKind::kUnknown: return "unknown";
  }
  return "unknown";
}

}  // namespace memfloor::reports
