// Helpers over trace records: which are timed, and the names of the enums (as the text form uses).
#include "trace/records.h"

#include <type_traits>

namespace memfloor::trace {

namespace {

template <typename T>
constexpr bool kIsTimed = std::is_base_of_v<MemoryEvent, T> || std::is_same_v<T, PoolEvent> ||
                          std::is_same_v<T, Marker> || std::is_same_v<T, Census> ||
                          std::is_same_v<T, Held> || std::is_same_v<T, Step>;

}  // namespace

bool isTimed(const Record& record) {
  return std::visit([](const auto& r) { return kIsTimed<std::decay_t<decltype(r)>>; }, record);
}

uint64_t timestampOf(const Record& record) {
  return std::visit(
      [](const auto& r) -> uint64_t {
        if constexpr (kIsTimed<std::decay_t<decltype(r)>>) {
          return r.timestamp;
        } else {
          return 0;
        }
      },
      record);
}

std::string_view toString(MemoryKind kind) {
  switch (kind) {
    case MemoryKind::kDevice:
      return "device";
    case MemoryKind::kPinned:
      return "pinned";
    case MemoryKind::kManaged:
      return "managed";
    case MemoryKind::kDeviceStatic:
      return "device_static";
    case MemoryKind::kPool:
      return "pool";
    case MemoryKind::kBlock:
      return "block";
    case MemoryKind::kUnknown:
      break;
  }
  return "unknown";
}

std::string_view toString(MarkerType type) {
  switch (type) {
    case MarkerType::kPush:
      return "push";
    case MarkerType::kPop:
      return "pop";
    case MarkerType::kStart:
      return "start";
    case MarkerType::kEnd:
      return "end";
    case MarkerType::kInstant:
      return "instant";
  }
  return "unknown";
}

std::string_view toString(PoolEventType type) {
  switch (type) {
    case PoolEventType::kCreated:
      return "created";
    case PoolEventType::kTrimmed:
      return "trimmed";
    case PoolEventType::kDestroyed:
      return "destroyed";
  }
  return "unknown";
}

std::string_view toString(FrameKind kind) {
  switch (kind) {
    case FrameKind::kNative:
      return "native";
    case FrameKind::kPython:
      return "python";
  }
  return "unknown";
}

std::string_view toString(DropSource source) {
  switch (source) {
    case DropSource::kCupti:
      return "cupti";
    case DropSource::kWriter:
      return "writer";
  }
  return "unknown";
}

std::string_view toString(HeldRole role) {
  switch (role) {
    case HeldRole::kOther:
      return "other";
    case HeldRole::kParameter:
      return "parameter";
    case HeldRole::kBuffer:
      return "buffer";
    case HeldRole::kGradient:
      return "gradient";
    case HeldRole::kOptimizerState:
      return "optimizer_state";
  }
  return "unknown";
}

std::string_view toString(StepPhase phase) {
  switch (phase) {
    case StepPhase::kBegin:
      return "begin";
    case StepPhase::kEnd:
      return "end";
  }
  return "unknown";
}

}  // namespace memfloor::trace
