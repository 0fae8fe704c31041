// Tests of trace/chunk_decoder.cpp (with field_cursor.h and record_decoder.h): field checks,
// unknown records, header consistency, the event index and its sort.
#include "trace/chunk_decoder.h"

#include <random>

#include "trace_test_util.h"

namespace memfloor::trace {
namespace {

using testing::Bytes;
using testing::makeRecord;

ChunkHeader headerFor(const Bytes& body, uint32_t count, uint64_t min_ts, uint64_t max_ts) {
  ChunkHeader header;
  header.body_length = static_cast<uint32_t>(body.size());
  header.record_count = count;
  header.min_timestamp = min_ts;
  header.max_timestamp = max_ts;
  return header;
}

// Decodes a body (both ways) against a header built from the given fields; returns the problem
// ("" if none) after checking that both ways agree.
std::string decode(const Bytes& body, uint32_t count, std::vector<Record>* out = nullptr,
                   uint64_t min_ts = UINT64_MAX, uint64_t max_ts = 0) {
  const ChunkHeader header = headerFor(body, count, min_ts, max_ts);
  detail::ChunkDecoder decoder;
  decoder.reset(header, body);
  std::vector<Record> records;
  Record r;
  while (decoder.next(r)) records.push_back(r);
  // The index decodes the same body whole: it fails on the same problem, and otherwise holds the
  // same records (events apart from the others).
  detail::ChunkIndex index;
  const std::string index_problem = detail::indexChunk(header, body, index);
  CHECK(decoder.problem() == index_problem);
  if (index_problem.empty()) {
    std::vector<Record> timed;
    std::vector<Record> untimed;
    for (const Record& record : records) {
      if (std::holds_alternative<Trailer>(record)) continue;
      (isTimed(record) ? timed : untimed).push_back(record);
    }
    std::vector<Record> indexed;
    for (const Event& e : index.events) {
      toRecord(e, r);
      indexed.push_back(r);
    }
    CHECK(indexed == timed);
    CHECK(index.untimed == untimed);
  }
  if (out != nullptr) *out = records;
  return decoder.problem();
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

TEST_CASE("varints of 9 and 10 bytes, and too long ones, in both cursors",
          "[trace][chunk_decoder]") {
  for (uint64_t value : {uint64_t{1} << 56, uint64_t{1} << 63, UINT64_MAX}) {
    const Bytes alloc = makeRecord(kAlloc, {0, 0, 0, 0, value, value, value, 0, value, 0});
    Bytes padded = alloc;
    const Bytes filler = makeRecord(12, {0, 0});
    for (int i = 0; i < 40; ++i) padded.insert(padded.end(), filler.begin(), filler.end());
    std::vector<Record> records;
    CHECK(decode(alloc, 1, &records, 0, 0).empty());
    CHECK(std::get<Alloc>(records.at(0)).correlation == value);
    CHECK(decode(padded, 41, &records, 0, 0).empty());
    CHECK(std::get<Alloc>(records.at(0)).address == value);
  }
  // an 11-byte varint in the address of a padded alloc
  Bytes bad{kAlloc, 20,   0,    0,    0,    0,    0x80, 0x80, 0x80, 0x80, 0x80,
            0x80,   0x80, 0x80, 0x80, 0x80, 0x01, 0,    0,    0,    0,    0};
  const Bytes filler = makeRecord(12, {0, 0});
  for (int i = 0; i < 40; ++i) bad.insert(bad.end(), filler.begin(), filler.end());
  CHECK(decode(bad, 41, nullptr, 0, 0) == "alloc (type 8) at body offset 0: malformed varint");
  // bits beyond 64 in the 10th byte
  Bytes wide{kAlloc, 19,   0,    0,    0,    0, 0xff, 0xff, 0xff, 0xff, 0xff,
             0xff,   0xff, 0xff, 0xff, 0x02, 0, 0,    0,    0,    0};
  for (int i = 0; i < 40; ++i) wide.insert(wide.end(), filler.begin(), filler.end());
  CHECK(decode(wide, 41, nullptr, 0, 0) == "alloc (type 8) at body offset 0: malformed varint");
}

TEST_CASE("the index: events in file order, untimed records whole, the trailer apart",
          "[trace][chunk_decoder]") {
  const Bytes body = testing::concat({
      makeRecord(kAlloc, {codec::zigzag(100), 0, 0, 0, 0x10, 8, 0, 0, 0, 0}),
      makeRecord(kString, {1, 0}),
      makeRecord(9, {codec::zigzag(-40), 0, 0, 0, 0x10, 8, 0, 0, 0, 0}),
      makeRecord(13, {2, 7}),
  });
  const ChunkHeader header = headerFor(body, 4, 60, 100);
  detail::ChunkIndex index;
  REQUIRE(detail::indexChunk(header, body, index).empty());
  REQUIRE(index.events.size() == 2);
  CHECK(index.events[0].timestamp == 100);
  CHECK(index.events[1].timestamp == 60);
  CHECK_FALSE(index.sorted);
  CHECK(index.untimed == std::vector<Record>{StringDef{1, ""}});
  CHECK(index.has_trailer);
  CHECK(index.trailer == Trailer{2, 7});
  detail::SortScratch scratch;
  detail::sortEvents(index, scratch);
  CHECK(index.events[0].timestamp == 60);
  Record r;
  toRecord(index.events[0], r);
  Free expected_free;
  expected_free.timestamp = 60;
  expected_free.address = 0x10;
  expected_free.size = 8;
  CHECK(r == Record{expected_free});
}

TEST_CASE("every timed record survives the index", "[trace][chunk_decoder]") {
  const std::vector<Record> records = {
      Record{PoolEvent{5, 0x5000, 1 << 21, 77, 3, PoolEventType::kTrimmed, 2}},
      Record{Marker{7, 11, 3, 4, 5, MarkerType::kStart}},
      Record{Alloc{{9, 0x10, 8, 12, 13, 14, 15, 16, MemoryKind::kManaged, 3}}},
      Record{Free{{9, 0x10, 8, 12, 13, 14, 15, 16, MemoryKind::kPool, 1}}},
  };
  for (const auto encoding : {Writer::Encoding::kPacked, Writer::Encoding::kVarint}) {
    for (const Record& record : records) {
      const Bytes bytes = testing::writeBinary({record}, 4096, false, 0, encoding);
      CHECK(testing::readAll<TimeOrderReader>(bytes) == std::vector<Record>{record});
      CHECK(testing::readAll<FileOrderReader>(bytes) == std::vector<Record>{record});
    }
  }
}

TEST_CASE("sortEvents is a stable sort by timestamp", "[trace][chunk_decoder]") {
  std::mt19937_64 rng(99);
  for (size_t n : {2u, 50u, 1000u, 20000u}) {
    for (uint64_t spread : {uint64_t{3}, uint64_t{5000}, uint64_t{1} << 40, UINT64_MAX}) {
      detail::ChunkIndex index;
      for (size_t i = 0; i < n; ++i) {
        Event e{};
        e.timestamp = spread == UINT64_MAX ? rng() : rng() % spread;
        e.address = i;  // the file position
        index.events.push_back(e);
      }
      index.sorted = false;
      detail::EventVector expected = index.events;
      std::stable_sort(expected.begin(), expected.end(),
                       [](const auto& a, const auto& b) { return a.timestamp < b.timestamp; });
      detail::SortScratch scratch;
      detail::sortEvents(index, scratch);
      REQUIRE(index.events.size() == expected.size());
      bool same = true;
      for (size_t i = 0; i < n; ++i) {
        same = same && index.events[i].timestamp == expected[i].timestamp &&
               index.events[i].address == expected[i].address;
      }
      CHECK(same);
    }
  }
}

TEST_CASE("records near the end of a body are read with bounds checks", "[trace][chunk_decoder]") {
  // The same alloc decoded with room after it (the unchecked fast path) and as the last bytes of
  // the body (the checked path), complete and cut short.
  const Bytes alloc =
      makeRecord(kAlloc, {codec::zigzag(5), 2, 1, 3, 0x7f0000001000, 4096, 123456, 9, 1u << 30, 1});
  Bytes padded = alloc;
  for (int i = 0; i < 20; ++i) {
    const Bytes filler = makeRecord(12, {0, uint64_t(i) << 40});
    padded.insert(padded.end(), filler.begin(), filler.end());
  }
  std::vector<Record> first;
  std::vector<Record> second;
  CHECK(decode(padded, 21, &first, 5, 5).empty());
  CHECK(decode(alloc, 1, &second, 5, 5).empty());
  REQUIRE(first.size() == 21);
  REQUIRE(second.size() == 1);
  CHECK(first[0] == second[0]);
  Bytes short_alloc = alloc;
  short_alloc[1] = static_cast<uint8_t>(short_alloc[1] - 1);  // the length leaves out the flags
  short_alloc.pop_back();
  CHECK(decode(short_alloc, 1, nullptr, 5, 5) ==
        "alloc (type 8) at body offset 0: payload ends inside its fields");
  Bytes short_padded = short_alloc;
  short_padded.insert(short_padded.end(),
                      padded.begin() + static_cast<std::ptrdiff_t>(alloc.size()), padded.end());
  CHECK(decode(short_padded, 21, nullptr, 5, 5) ==
        "alloc (type 8) at body offset 0: payload ends inside its fields");
}

}  // namespace
}  // namespace memfloor::trace

namespace memfloor::trace {
namespace {

using testing::Bytes;
using testing::makePackedRecord;
using testing::makeRecord;

constexpr uint8_t kContext = 14;
constexpr uint8_t kAllocPacked = 15;
constexpr uint8_t kFreePacked = 16;

TEST_CASE("packed allocs and frees take their repeated fields from the chunk's context",
          "[trace][chunk_decoder][packed]") {
  const Bytes body = testing::concat({
      // context 7: kind managed, device 2, stream 9, thread 1234, flags async
      makeRecord(kContext, {7, 2, 2, 9, 1234, 1}),
      makePackedRecord(kAllocPacked, 1000, 7, 3, 0x7f0000001000, 4096, 55),
      makePackedRecord(kFreePacked, -10, 7, 0, 0x7f0000001000, 4096, 56, 5),  // 5 appended bytes
      makeRecord(kContext, {7, 0, 1, 0, 99, 0}),  // redefined: later records use the new fields
      makePackedRecord(kFreePacked, 20, 7, 0, 0x20, 0, UINT64_MAX),
  });
  std::vector<Record> records;
  CHECK(decode(body, 5, &records, 990, 1010).empty());
  REQUIRE(records.size() == 3);
  Alloc a;
  a.timestamp = 1000;
  a.kind = MemoryKind::kManaged;
  a.device = 2;
  a.stream = 9;
  a.thread = 1234;
  a.flags = kMemoryFlagAsync;
  a.stack = 3;
  a.address = 0x7f0000001000;
  a.size = 4096;
  a.correlation = 55;
  CHECK(records[0] == Record{a});
  Free f;
  static_cast<MemoryEvent&>(f) = a;
  f.timestamp = 990;
  f.stack = 0;
  f.correlation = 56;
  CHECK(records[1] == Record{f});
  Free g;
  g.timestamp = 1010;
  g.device = 1;
  g.thread = 99;
  g.address = 0x20;
  g.correlation = UINT64_MAX;
  CHECK(records[2] == Record{g});
}

TEST_CASE("bad packed records and contexts make the chunk corrupt",
          "[trace][chunk_decoder][packed]") {
  const Bytes context = makeRecord(kContext, {0, 0, 0, 0, 0, 0});
  // a context index that was never defined in this chunk
  CHECK(decode(makePackedRecord(kAllocPacked, 5, 3, 0, 0x10, 8, 0), 1, nullptr, 5, 5) ==
        "packed alloc (type 15) at body offset 0: memory context not defined in this chunk");
  // a payload shorter than the fixed fields, with and without room after it in the body
  Bytes short_record = makePackedRecord(kFreePacked, 5, 0, 0, 0x10, 8, 0);
  short_record[1] = kPackedMemoryPayload - 1;
  short_record.pop_back();
  CHECK(decode(testing::concat({context, short_record}), 2, nullptr, 5, 5) ==
        "packed free (type 16) at body offset 8: payload ends inside its fields");
  Bytes padded = testing::concat({context, short_record});
  for (int i = 0; i < 20; ++i) {
    const Bytes filler = makeRecord(12, {0, 1});
    padded.insert(padded.end(), filler.begin(), filler.end());
  }
  CHECK(decode(padded, 22, nullptr, 5, 5) ==
        "packed free (type 16) at body offset 8: payload ends inside its fields");
  // context fields out of range: index above 255, a device above u32, an unknown memory kind is
  // fine (read as unknown)
  CHECK(decode(makeRecord(kContext, {256, 0, 0, 0, 0, 0}), 1) ==
        "memory context (type 14) at body offset 0: value too large for its field");
  CHECK(decode(makeRecord(kContext, {1, 0, uint64_t{1} << 32, 0, 0, 0}), 1) ==
        "memory context (type 14) at body offset 0: value too large for its field");
  CHECK(decode(makeRecord(kContext, {1, 0, 0, 0}), 1) ==
        "memory context (type 14) at body offset 0: payload ends inside its fields");
  std::vector<Record> records;
  CHECK(decode(testing::concat({makeRecord(kContext, {1, 77, 0, 0, 0, 0}),
                                makePackedRecord(kAllocPacked, 5, 1, 0, 0x10, 8, 0)}),
               2, &records, 5, 5)
            .empty());
  REQUIRE(records.size() == 1);
  CHECK(std::get<Alloc>(records[0]).kind == MemoryKind::kUnknown);
}

TEST_CASE("memory contexts do not carry over to the next chunk", "[trace][chunk_decoder][packed]") {
  const Bytes first = testing::concat({makeRecord(kContext, {1, 0, 0, 0, 0, 0}),
                                       makePackedRecord(kAllocPacked, 5, 1, 0, 0x10, 8, 0)});
  const Bytes second = makePackedRecord(kFreePacked, 6, 1, 0, 0x10, 8, 0);
  const Bytes file = testing::concat({testing::fileHeader(), testing::makeChunk(first, 2, 5, 5),
                                      testing::makeChunk(second, 1, 6, 6)});
  TraceEnd end;
  CHECK(testing::readAll<FileOrderReader>(file, &end).size() == 1);
  CHECK(end.ending == Ending::kCorrupt);
  CHECK(end.detail ==
        "packed free (type 16) at body offset 0: memory context not defined in this chunk");
  CHECK(testing::readAll<TimeOrderReader>(file, &end).size() == 1);
  CHECK(end.ending == Ending::kCorrupt);
}

}  // namespace
}  // namespace memfloor::trace
