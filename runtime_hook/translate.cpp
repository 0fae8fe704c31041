// CUPTI activity records -> trace records.
#include "runtime_hook/translate.h"

namespace memfloor::hook {

trace::MemoryKind toMemoryKind(CUpti_ActivityMemoryKind kind) {
  switch (kind) {
    case CUPTI_ACTIVITY_MEMORY_KIND_DEVICE:
      return trace::MemoryKind::kDevice;
    case CUPTI_ACTIVITY_MEMORY_KIND_PINNED:
      return trace::MemoryKind::kPinned;
    case CUPTI_ACTIVITY_MEMORY_KIND_MANAGED:
    case CUPTI_ACTIVITY_MEMORY_KIND_MANAGED_STATIC:
      return trace::MemoryKind::kManaged;
    case CUPTI_ACTIVITY_MEMORY_KIND_DEVICE_STATIC:
      return trace::MemoryKind::kDeviceStatic;
    default:
      return trace::MemoryKind::kUnknown;
  }
}

uint32_t toStream(uint32_t cupti_stream_id) {
  return cupti_stream_id == CUPTI_INVALID_STREAM_ID ? 0u : cupti_stream_id;
}

namespace {

Translated translateMemory(const CuptiMemoryRecord& m) {
  trace::MemoryEvent event;
  event.timestamp = m.timestamp;
  event.address = m.address;
  event.size = m.bytes;
  event.correlation = m.correlationId;
  event.stream = toStream(m.streamId);
  event.device = m.deviceId;
  event.kind = toMemoryKind(m.memoryKind);
  if (m.isAsync != 0) event.flags |= trace::kMemoryFlagAsync;
  switch (m.memoryOperationType) {
    case CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_ALLOCATION:
      return trace::Alloc{event};
    case CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_RELEASE:
      return trace::Free{event};
    default:
      return std::monostate{};
  }
}

Translated translatePool(const CuptiPoolRecord& p) {
  trace::PoolEvent event;
  event.timestamp = p.timestamp;
  event.address = p.address;
  event.size = p.size;
  event.utilized = p.utilizedSize;
  event.device = p.deviceId;
  event.pool_type = static_cast<uint8_t>(p.memoryPoolType);
  switch (p.memoryPoolOperationType) {
    case CUPTI_ACTIVITY_MEMORY_POOL_OPERATION_TYPE_CREATED:
      event.type = trace::PoolEventType::kCreated;
      break;
    case CUPTI_ACTIVITY_MEMORY_POOL_OPERATION_TYPE_TRIMMED:
      event.type = trace::PoolEventType::kTrimmed;
      break;
    case CUPTI_ACTIVITY_MEMORY_POOL_OPERATION_TYPE_DESTROYED:
      event.type = trace::PoolEventType::kDestroyed;
      break;
    default:
      return std::monostate{};
  }
  return event;
}

}  // namespace

Translated translate(const CUpti_Activity& record) {
  // CUPTI hands out records as CUpti_Activity headers; the kind says which struct follows.
  switch (record.kind) {
    case CUPTI_ACTIVITY_KIND_MEMORY2:
      return translateMemory(reinterpret_cast<const CuptiMemoryRecord&>(record));
    case CUPTI_ACTIVITY_KIND_MEMORY_POOL:
      return translatePool(reinterpret_cast<const CuptiPoolRecord&>(record));
    default:
      return std::monostate{};
  }
}

}  // namespace memfloor::hook
