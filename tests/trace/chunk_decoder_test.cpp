// Tests of trace/chunk_decoder.{h,cpp}: field checks, unknown records, header consistency.
#include "trace/chunk_decoder.h"

#include "trace_test_util.h"

namespace memfloor::trace {
namespace {

using testing::Bytes;
using testing::makeRecord;

// Decodes a body against a header built from the given fields; returns the problem ("" if none).
std::string decode(const Bytes& body, uint32_t count, std::vector<Record>* out = nullptr,
                   uint64_t min_ts = UINT64_MAX, uint64_t max_ts = 0) {
  ChunkHeader header;
  header.body_length = static_cast<uint32_t>(body.size());
  header.record_count = count;
  header.min_timestamp = min_ts;
  header.max_timestamp = max_ts;
  std::vector<Record> records;
  std::string problem = detail::decodeChunk(header, body, [&](auto&& r) {
    records.emplace_back(std::move(r));
  });
  if (out != nullptr) *out = records;
  return problem;
}

constexpr uint8_t kAlloc = 8;
constexpr uint8_t kString = 1;

TEST_CASE("unknown record codes and appended fields are skipped", "[trace][chunk_decoder]") {
  const Bytes body = testing::concat({
      makeRecord(200, {1, 2, 3}),           // a record type from a newer minor version
      makeRecord(12, {1, 9, 123456, 777}),  // dropped with two appended fields
  });
  std::vector<Record> records;
  CHECK(decode(body, 2, &records).empty());
  REQUIRE(records.size() == 1);
  CHECK(records[0] == Record{Dropped{DropSource::kWriter, 9}});
}

TEST_CASE("timestamps are deltas from the previous event of the chunk", "[trace][chunk_decoder]") {
  const Bytes body = testing::concat({
      makeRecord(kAlloc, {codec::zigzag(100), 0, 0, 0, 0x10, 8, 0, 0, 0, 0}),
      makeRecord(kString, {1, 0}),  // untimed: does not move the base
      makeRecord(kAlloc, {codec::zigzag(-40), 0, 0, 0, 0x20, 8, 0, 0, 0, 0}),
  });
  std::vector<Record> records;
  CHECK(decode(body, 3, &records, 60, 100).empty());
  REQUIRE(records.size() == 3);
  CHECK(std::get<Alloc>(records[0]).timestamp == 100);
  CHECK(std::get<Alloc>(records[2]).timestamp == 60);
  CHECK(decode(body, 3, nullptr, 60, 99) ==
        "header timestamps [60, 99] differ from the body's [60, 100]");
  CHECK(decode(body, 4, nullptr, 60, 100) == "header says 4 records, body holds 3");
}

TEST_CASE("a memory kind from the future reads as unknown", "[trace][chunk_decoder]") {
  std::vector<Record> records;
  CHECK(decode(makeRecord(kAlloc, {0, 17, 0, 0, 0, 0, 0, 0, 0, 0}), 1, &records, 0, 0).empty());
  REQUIRE(records.size() == 1);
  CHECK(std::get<Alloc>(records[0]).kind == MemoryKind::kUnknown);
}

TEST_CASE("malformed records make the chunk corrupt", "[trace][chunk_decoder]") {
  // an alloc missing its flags
  CHECK(decode(makeRecord(kAlloc, {0, 0, 0, 0, 0, 0, 0, 0, 0}), 1, nullptr, 0, 0) ==
        "alloc (type 8) at body offset 0: payload ends inside its fields");
  // device does not fit u32
  CHECK(decode(makeRecord(kAlloc, {0, 0, 1ull << 32, 0, 0, 0, 0, 0, 0, 0}), 1, nullptr, 0, 0) ==
        "alloc (type 8) at body offset 0: value too large for its field");
  // flags do not fit u8
  CHECK(decode(makeRecord(kAlloc, {0, 0, 0, 0, 0, 0, 0, 0, 0, 256}), 1, nullptr, 0, 0) ==
        "alloc (type 8) at body offset 0: value too large for its field");
  // marker type 5 does not exist
  CHECK(decode(makeRecord(11, {0, 5, 0, 0, 0, 0}), 1, nullptr, 0, 0) ==
        "marker (type 11) at body offset 0: unknown enum value");
  CHECK(decode(makeRecord(10, {0, 3, 0, 0, 0, 0, 0}), 1, nullptr, 0, 0) ==
        "pool (type 10) at body offset 0: unknown enum value");
  CHECK(decode(makeRecord(3, {1, 2, 0, 0, 0, 0, 0}), 1) ==
        "frame (type 3) at body offset 0: unknown enum value");
  CHECK(decode(makeRecord(12, {2, 0}), 1) ==
        "dropped (type 12) at body offset 0: unknown enum value");
  // definitions need non-zero ids, stacks non-zero frames
  CHECK(decode(makeRecord(kString, {0, 0}), 1) == "string (type 1) at body offset 0: id 0");
  CHECK(decode(makeRecord(2, {0, 0, 0, 0, 0}), 1) == "module (type 2) at body offset 0: id 0");
  CHECK(decode(makeRecord(4, {1, 2, 3, 0}), 1) == "stack (type 4) at body offset 0: id 0");
  // a stack claiming more frames than its payload holds: refused before any allocation
  CHECK(decode(makeRecord(4, {1, 1ull << 40}), 1) ==
        "stack (type 4) at body offset 0: payload ends inside its fields");
  // a string longer than its payload
  CHECK(decode(makeRecord(kString, {1, 50}), 1) ==
        "string (type 1) at body offset 0: payload ends inside its fields");
  // ranks must fit s32
  CHECK(decode(makeRecord(5, {0, 0, 0, 0, codec::zigzag(int64_t{1} << 31), 0, 0}), 1) ==
        "process (type 5) at body offset 0: value too large for its field");
}

TEST_CASE("record framing errors", "[trace][chunk_decoder]") {
  Bytes overlong = makeRecord(kString, {1, 0});
  overlong[1] = 50;  // length past the body
  CHECK(decode(overlong, 1) == "string (type 1) at body offset 0: length runs past the chunk body");
  CHECK(decode(Bytes{kString}, 1) ==
        "string (type 1) at body offset 0: length runs past the chunk body");
  // an 11-byte varint
  Bytes long_varint{12, 12, 0, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01};
  CHECK(decode(long_varint, 1) == "dropped (type 12) at body offset 0: malformed varint");
  // a varint whose 10th byte sets bits beyond 64
  Bytes wide{12, 11, 0, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02};
  CHECK(decode(wide, 1) == "dropped (type 12) at body offset 0: malformed varint");
  Bytes max_u64{12, 11, 0, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01};
  std::vector<Record> records;
  CHECK(decode(max_u64, 1, &records).empty());
  CHECK(std::get<Dropped>(records.at(0)).count == UINT64_MAX);
}

TEST_CASE("nothing may follow the trailer in its chunk", "[trace][chunk_decoder]") {
  const Bytes body = testing::concat({makeRecord(13, {0, 0}), makeRecord(12, {0, 1})});
  CHECK(decode(body, 2) == "dropped (type 12) at body offset 4: record after the trailer");
}

}  // namespace
}  // namespace memfloor::trace
