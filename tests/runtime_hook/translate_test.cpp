// Record translation from hand-built CUPTI records (CUDA 13 layouts).
#include "runtime_hook/translate.h"

#include <catch2/catch.hpp>
#include <cstring>

using namespace memfloor;
using hook::CuptiMemoryRecord;
using hook::CuptiPoolRecord;

namespace {

CuptiMemoryRecord memoryRecord(CUpti_ActivityMemoryOperationType op,
                               CUpti_ActivityMemoryKind kind) {
  CuptiMemoryRecord m;
  std::memset(&m, 0, sizeof m);
  m.kind = CUPTI_ACTIVITY_KIND_MEMORY2;
  m.memoryOperationType = op;
  m.memoryKind = kind;
  m.correlationId = 77;
  m.address = 0x7f0000001000;
  m.bytes = 4096;
  m.timestamp = 123456789;
  m.deviceId = 1;
  m.streamId = CUPTI_INVALID_STREAM_ID;
  return m;
}

const CUpti_Activity& asActivity(const CuptiMemoryRecord& m) {
  return reinterpret_cast<const CUpti_Activity&>(m);
}

}  // namespace

TEST_CASE("a synchronous device allocation becomes an Alloc", "[runtime_hook]") {
  auto m = memoryRecord(CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_ALLOCATION,
                        CUPTI_ACTIVITY_MEMORY_KIND_DEVICE);
  hook::Translated t = hook::translate(asActivity(m));
  auto* alloc = std::get_if<trace::Alloc>(&t);
  REQUIRE(alloc != nullptr);
  CHECK(alloc->timestamp == 123456789);
  CHECK(alloc->address == 0x7f0000001000);
  CHECK(alloc->size == 4096);
  CHECK(alloc->correlation == 77);
  CHECK(alloc->device == 1);
  CHECK(alloc->stream == 0);  // CUPTI_INVALID_STREAM_ID: synchronous
  CHECK(alloc->kind == trace::MemoryKind::kDevice);
  CHECK(alloc->flags == 0);
  CHECK(alloc->thread == 0);
  CHECK(alloc->stack == trace::kNoId);
}

TEST_CASE("an async release keeps its stream and the async flag", "[runtime_hook]") {
  auto m =
      memoryRecord(CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_RELEASE, CUPTI_ACTIVITY_MEMORY_KIND_DEVICE);
  m.isAsync = 1;
  m.streamId = 13;
  m.memoryPoolConfig.memoryPoolType = CUPTI_ACTIVITY_MEMORY_POOL_TYPE_LOCAL;
  hook::Translated t = hook::translate(asActivity(m));
  auto* free = std::get_if<trace::Free>(&t);
  REQUIRE(free != nullptr);
  CHECK(free->stream == 13);
  CHECK(free->flags == trace::kMemoryFlagAsync);
  CHECK(free->size == 4096);
}

TEST_CASE("memory kinds map onto the trace's kinds", "[runtime_hook]") {
  using K = trace::MemoryKind;
  CHECK(hook::toMemoryKind(CUPTI_ACTIVITY_MEMORY_KIND_DEVICE) == K::kDevice);
  CHECK(hook::toMemoryKind(CUPTI_ACTIVITY_MEMORY_KIND_PINNED) == K::kPinned);
  CHECK(hook::toMemoryKind(CUPTI_ACTIVITY_MEMORY_KIND_MANAGED) == K::kManaged);
  CHECK(hook::toMemoryKind(CUPTI_ACTIVITY_MEMORY_KIND_MANAGED_STATIC) == K::kManaged);
  CHECK(hook::toMemoryKind(CUPTI_ACTIVITY_MEMORY_KIND_DEVICE_STATIC) == K::kDeviceStatic);
  CHECK(hook::toMemoryKind(CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE) == K::kUnknown);
  CHECK(hook::toMemoryKind(CUPTI_ACTIVITY_MEMORY_KIND_UNKNOWN) == K::kUnknown);

  auto m = memoryRecord(CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_ALLOCATION,
                        CUPTI_ACTIVITY_MEMORY_KIND_PINNED);
  hook::Translated t = hook::translate(asActivity(m));
  REQUIRE(std::holds_alternative<trace::Alloc>(t));
  CHECK(std::get<trace::Alloc>(t).kind == K::kPinned);
}

TEST_CASE("records that carry no allocation translate to nothing", "[runtime_hook]") {
  auto m =
      memoryRecord(CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_INVALID, CUPTI_ACTIVITY_MEMORY_KIND_DEVICE);
  CHECK(std::holds_alternative<std::monostate>(hook::translate(asActivity(m))));

  CUpti_Activity other;
  other.kind = CUPTI_ACTIVITY_KIND_KERNEL;
  CHECK(std::holds_alternative<std::monostate>(hook::translate(other)));
}

TEST_CASE("pool records become PoolEvents", "[runtime_hook]") {
  CuptiPoolRecord p;
  std::memset(&p, 0, sizeof p);
  p.kind = CUPTI_ACTIVITY_KIND_MEMORY_POOL;
  p.memoryPoolOperationType = CUPTI_ACTIVITY_MEMORY_POOL_OPERATION_TYPE_TRIMMED;
  p.memoryPoolType = CUPTI_ACTIVITY_MEMORY_POOL_TYPE_LOCAL;
  p.deviceId = 2;
  p.address = 0x7f00ff000000;
  p.size = 1u << 30;
  p.utilizedSize = 1u << 20;
  p.timestamp = 42;
  hook::Translated t = hook::translate(reinterpret_cast<const CUpti_Activity&>(p));
  auto* pool = std::get_if<trace::PoolEvent>(&t);
  REQUIRE(pool != nullptr);
  CHECK(pool->type == trace::PoolEventType::kTrimmed);
  CHECK(pool->pool_type == 1);
  CHECK(pool->device == 2);
  CHECK(pool->address == 0x7f00ff000000);
  CHECK(pool->size == (1u << 30));
  CHECK(pool->utilized == (1u << 20));
  CHECK(pool->timestamp == 42);

  p.memoryPoolOperationType = CUPTI_ACTIVITY_MEMORY_POOL_OPERATION_TYPE_CREATED;
  t = hook::translate(reinterpret_cast<const CUpti_Activity&>(p));
  CHECK(std::get<trace::PoolEvent>(t).type == trace::PoolEventType::kCreated);
  p.memoryPoolOperationType = CUPTI_ACTIVITY_MEMORY_POOL_OPERATION_TYPE_DESTROYED;
  t = hook::translate(reinterpret_cast<const CUpti_Activity&>(p));
  CHECK(std::get<trace::PoolEvent>(t).type == trace::PoolEventType::kDestroyed);
}
