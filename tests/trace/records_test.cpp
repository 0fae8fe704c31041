// Tests of trace/records.cpp: which records are timed, and the enum names.
#include "trace/records.h"

#include <catch2/catch.hpp>

namespace memfloor::trace {
namespace {

TEST_CASE("timed records are the events", "[trace][records]") {
  Alloc alloc;
  alloc.timestamp = 7;
  CHECK(isTimed(Record{alloc}));
  CHECK(timestampOf(Record{alloc}) == 7);
  CHECK(isTimed(Record{Free{}}));
  CHECK(isTimed(Record{PoolEvent{}}));
  CHECK(isTimed(Record{Marker{.timestamp = 3}}));
  CHECK(timestampOf(Record{Marker{.timestamp = 3}}) == 3);
  CHECK_FALSE(isTimed(Record{StringDef{1, "x"}}));
  CHECK_FALSE(isTimed(Record{Trailer{5, 9}}));
  CHECK(timestampOf(Record{Trailer{5, 9}}) == 0);
  CHECK_FALSE(isTimed(Record{Dropped{}}));
}

TEST_CASE("enum names", "[trace][records]") {
  CHECK(toString(MemoryKind::kDeviceStatic) == "device_static");
  CHECK(toString(MemoryKind::kBlock) == "block");
  CHECK(static_cast<uint8_t>(MemoryKind::kBlock) == 6);  // a file-format value (1.2)
  CHECK(kMemoryKindCount == 7);
  CHECK(toString(static_cast<MemoryKind>(99)) == "unknown");
  CHECK(toString(MarkerType::kInstant) == "instant");
  CHECK(toString(PoolEventType::kTrimmed) == "trimmed");
  CHECK(toString(FrameKind::kPython) == "python");
  CHECK(toString(DropSource::kWriter) == "writer");
}

}  // namespace
}  // namespace memfloor::trace
