// Tests of trace/writer.cpp: the byte layout, chunk sealing, refusals and sink failures.
#include "trace/writer.h"

#include <random>

#include "trace/codec.h"
#include "trace_test_util.h"

namespace memfloor::trace {
namespace {

using testing::Bytes;

class FailingSink final : public Sink {
 public:
  explicit FailingSink(int ok_writes) : ok_writes_(ok_writes) {}
  bool write(const void*, size_t) override { return ok_writes_-- > 0; }

 private:
  int ok_writes_;
};

TEST_CASE("the file header is magic, major, minor, reserved", "[trace][writer]") {
  MemorySink sink;
  Writer writer(sink);
  REQUIRE(writer.begin());
  const Bytes& b = sink.bytes();
  REQUIRE(b.size() == kFileHeaderSize);
  CHECK(std::equal(std::begin(kMagic), std::end(kMagic), b.begin()));
  CHECK(codec::loadLe16(b.data() + FileHeaderLayout::kMajorAt) == kMajorVersion);
  CHECK(codec::loadLe16(b.data() + FileHeaderLayout::kMinorAt) == kMinorVersion);
  CHECK(codec::loadLe32(b.data() + FileHeaderLayout::kReservedAt) == 0);
  CHECK_FALSE(writer.begin());  // once
}

TEST_CASE("a chunk: header fields, checksum and record encoding", "[trace][writer]") {
  MemorySink sink;
  Writer writer(sink, Writer::kDefaultChunkBytes, Writer::Encoding::kVarint);
  REQUIRE(writer.begin());
  REQUIRE(writer.writeString(1, "ab"));
  REQUIRE(writer.write(testing::makeAlloc(1000, 0x10, 4)));
  REQUIRE(writer.write(testing::makeFree(990, 0x10)));
  CHECK(sink.bytes().size() == kFileHeaderSize);  // nothing sealed yet
  REQUIRE(writer.flush());
  const Bytes& b = sink.bytes();
  const uint8_t* chunk = b.data() + kFileHeaderSize;
  using L = ChunkHeaderLayout;
  const uint32_t body_length = codec::loadLe32(chunk + L::kBodyLengthAt);
  REQUIRE(b.size() == kFileHeaderSize + kChunkHeaderSize + body_length);
  CHECK(codec::loadLe32(chunk + L::kRecordCountAt) == 3);
  CHECK(codec::loadLe64(chunk + L::kMinTimestampAt) == 990);
  CHECK(codec::loadLe64(chunk + L::kMaxTimestampAt) == 1000);
  CHECK(codec::loadLe64(chunk + L::kChecksumAt) ==
        XXH3_64bits(chunk + L::kChecksummedAt, kChunkHeaderSize - L::kChecksummedAt + body_length));
  const Bytes body(chunk + kChunkHeaderSize, chunk + kChunkHeaderSize + body_length);
  // string: type 1, length 4, id 1, text length 2, "ab"
  const Bytes string_record{1, 4, 1, 2, 'a', 'b'};
  CHECK(Bytes(body.begin(), body.begin() + 6) == string_record);
  // alloc: type 8, length, zigzag(1000) = 2000 = 0xd0 0x0f, kind 0, device 0, stream 0,
  // address 0x10, size 4, thread 0, stack 0, correlation 0, flags 0
  const Bytes alloc_record{8, 11, 0xd0, 0x0f, 0, 0, 0, 0x10, 4, 0, 0, 0, 0};
  CHECK(Bytes(body.begin() + 6, body.begin() + 19) == alloc_record);
  // free: delta -10 -> zigzag 19
  CHECK(body[19] == 9);
  CHECK(body[21] == 19);
  CHECK(writer.recordCount() == 3);
}

TEST_CASE("packed allocs and frees: a memory context per chunk, then fixed-width fields",
          "[trace][writer][packed]") {
  MemorySink sink;
  Writer writer(sink);
  REQUIRE(writer.begin());
  Alloc a = testing::makeAlloc(1000, 0x7f0000001000, 4096);
  a.thread = 1234;
  a.stream = 9;
  a.device = 2;
  a.stack = 3;
  a.correlation = 0x1122334455667788;
  a.flags = kMemoryFlagAsync;
  Free f;
  static_cast<MemoryEvent&>(f) = a;
  f.timestamp = 990;
  REQUIRE((writer.write(a) && writer.write(f) && writer.flush()));
  const Bytes& b = sink.bytes();
  const uint8_t* chunk = b.data() + kFileHeaderSize;
  const uint32_t body_length = codec::loadLe32(chunk + ChunkHeaderLayout::kBodyLengthAt);
  // the context and two events
  CHECK(codec::loadLe32(chunk + ChunkHeaderLayout::kRecordCountAt) == 3);
  CHECK(writer.recordCount() == 2);  // the context is framing
  const Bytes body(chunk + kChunkHeaderSize, chunk + kChunkHeaderSize + body_length);
  // context: type 14, length, index, kind 0, device 2, stream 9, thread 1234 (d2 09), flags 1
  // (the index is a hash of the fields: one varint byte below 128, two above)
  CHECK(body[0] == 14);
  const size_t context = 2 + body[1];
  REQUIRE(body.size() == context + 2 * kPackedMemoryRecord);
  const uint8_t index = body[1] == 7 ? body[2] : static_cast<uint8_t>((body[2] & 0x7f) | 0x80);
  CHECK(Bytes(body.begin() + static_cast<std::ptrdiff_t>(context) - 6,
              body.begin() + static_cast<std::ptrdiff_t>(context)) ==
        Bytes{0, 2, 9, 0xd2, 0x09, 1});
  const Bytes alloc =
      testing::makePackedRecord(15, 1000, index, 3, 0x7f0000001000, 4096, 0x1122334455667788);
  const auto at = body.begin() + static_cast<std::ptrdiff_t>(context);
  CHECK(Bytes(at, at + kPackedMemoryRecord) == alloc);
  const Bytes free =
      testing::makePackedRecord(16, -10, index, 3, 0x7f0000001000, 4096, 0x1122334455667788);
  CHECK(Bytes(at + kPackedMemoryRecord, body.end()) == free);
}

TEST_CASE("packed: large deltas fall back to varints, many contexts round-trip",
          "[trace][writer][packed]") {
  std::vector<Record> records;
  std::mt19937_64 rng(5);
  uint64_t t = uint64_t{1} << 60;  // the first event of a chunk: a delta above 32 bits
  for (int i = 0; i < 3000; ++i) {
    Alloc a = testing::makeAlloc(t, rng(), rng());
    a.thread = rng() % 700;  // more contexts than a chunk's table holds: entries are replaced
    a.stream = static_cast<uint32_t>(rng() % 3);
    a.device = static_cast<uint32_t>(rng() % 2);
    a.kind = static_cast<MemoryKind>(rng() % kMemoryKindCount);
    a.flags = static_cast<uint8_t>(rng());
    a.stack = static_cast<uint32_t>(rng());
    a.correlation = rng();
    if (i % 2 == 0) {
      records.emplace_back(a);
    } else {
      records.emplace_back(Free{a});
    }
    t += i % 100 == 0 ? (uint64_t{1} << 33) : rng() % 1000;  // and now and then within a chunk
    if (i % 7 == 0) t -= 500;                                // and backwards
  }
  for (uint32_t chunk_bytes : {256u, 4096u, Writer::kDefaultChunkBytes}) {
    const Bytes bytes = testing::writeBinary(records, chunk_bytes, false);
    CHECK(testing::readAll<FileOrderReader>(bytes) == records);
    std::vector<Record> sorted = records;
    std::stable_sort(sorted.begin(), sorted.end(), [](const Record& x, const Record& y) {
      return timestampOf(x) < timestampOf(y);
    });
    CHECK(testing::readAll<TimeOrderReader>(bytes) == sorted);
  }
}

TEST_CASE("chunks are sealed at chunk_bytes and each decodes on its own", "[trace][writer]") {
  MemorySink sink;
  Writer writer(sink, 256);
  REQUIRE(writer.begin());
  for (uint64_t i = 0; i < 200; ++i) REQUIRE(writer.write(testing::makeAlloc(1000 + i, i << 12)));
  REQUIRE(writer.finish(5000));
  const Bytes& b = sink.bytes();
  size_t offset = kFileHeaderSize;
  int chunks = 0;
  uint32_t records = 0;
  while (offset < b.size()) {
    const uint32_t body_length =
        codec::loadLe32(b.data() + offset + ChunkHeaderLayout::kBodyLengthAt);
    CHECK(body_length <= 256);
    offset += kChunkHeaderSize + body_length;
    ++chunks;
  }
  for (const testing::ChunkSpan& span : testing::chunkSpans(b)) records += span.records;
  CHECK(offset == b.size());
  CHECK(chunks > 10);
  CHECK(records == 201);  // the allocs and the trailer (memory contexts apart)
  std::vector<Record> read = testing::readAll<FileOrderReader>(b);
  REQUIRE(read.size() == 201);
  CHECK(read.back() == Record{Trailer{200, 5000}});
}

TEST_CASE("finish writes the trailer alone in the last chunk", "[trace][writer]") {
  MemorySink sink;
  Writer writer(sink);
  REQUIRE((writer.begin() && writer.write(testing::makeAlloc(1, 2)) && writer.finish(77)));
  const Bytes& b = sink.bytes();
  const uint32_t first_body =
      codec::loadLe32(b.data() + kFileHeaderSize + ChunkHeaderLayout::kBodyLengthAt);
  const uint8_t* last = b.data() + kFileHeaderSize + kChunkHeaderSize + first_body;
  CHECK(codec::loadLe32(last + ChunkHeaderLayout::kRecordCountAt) == 1);
  CHECK(last[kChunkHeaderSize] == static_cast<uint8_t>(RecordCode::kTrailer));
  CHECK_FALSE(writer.write(testing::makeAlloc(3, 4)));  // nothing after the trailer
  CHECK_FALSE(writer.failed());
}

TEST_CASE("invalid records are refused and the writer stays usable", "[trace][writer]") {
  MemorySink sink;
  Writer writer(sink, 256);
  CHECK_FALSE(writer.write(testing::makeAlloc(1, 2)));  // before begin()
  REQUIRE(writer.begin());
  CHECK_FALSE(writer.writeString(kNoId, "x"));
  const FrameId frames[] = {1, 0, 2};
  CHECK_FALSE(writer.writeStack(1, frames, 3));
  CHECK_FALSE(writer.writeStack(kNoId, frames, 1));
  CHECK_FALSE(writer.write(ModuleDef{}));
  CHECK_FALSE(writer.write(FrameDef{}));
  Marker bad_marker;
  bad_marker.type = static_cast<MarkerType>(9);
  CHECK_FALSE(writer.write(bad_marker));
  PoolEvent bad_pool;
  bad_pool.type = static_cast<PoolEventType>(3);
  CHECK_FALSE(writer.write(bad_pool));
  CHECK_FALSE(writer.write(Dropped{static_cast<DropSource>(2), 1}));
  CHECK_FALSE(writer.writeString(1, std::string(300, 'x')));  // larger than a chunk
  CHECK_FALSE(writer.failed());
  CHECK(writer.recordCount() == 0);
  Alloc odd_kind = testing::makeAlloc(5, 6);
  odd_kind.kind = static_cast<MemoryKind>(42);
  REQUIRE(writer.write(odd_kind));
  REQUIRE(writer.finish(10));
  std::vector<Record> read = testing::readAll<FileOrderReader>(sink.bytes());
  REQUIRE(read.size() == 2);
  CHECK(std::get<Alloc>(read[0]).kind == MemoryKind::kUnknown);
}

TEST_CASE("a failing sink fails the writer for good", "[trace][writer]") {
  FailingSink sink(1);  // the header goes through, the first chunk does not
  Writer writer(sink, 256);
  REQUIRE(writer.begin());
  REQUIRE(writer.write(testing::makeAlloc(1, 2)));
  CHECK_FALSE(writer.flush());
  CHECK(writer.failed());
  CHECK_FALSE(writer.write(testing::makeAlloc(3, 4)));
  CHECK_FALSE(writer.finish(5));
  FailingSink no_header(0);
  Writer writer2(no_header);
  CHECK_FALSE(writer2.begin());
  CHECK(writer2.failed());
}

TEST_CASE("chunk_bytes is clamped", "[trace][writer]") {
  MemorySink sink;
  Writer writer(sink, 1);  // clamped up to kMinChunkBytes
  REQUIRE(writer.begin());
  REQUIRE(writer.writeString(1, std::string(200, 'x')));
  REQUIRE(writer.finish(0));
  CHECK(testing::readAll<FileOrderReader>(sink.bytes()).size() == 2);
}

}  // namespace
}  // namespace memfloor::trace
