// Tests of trace/reader.cpp: the file header checks, trace sniffing and describe().
#include "trace/reader.h"

#include <fmt/format.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "common/error.h"
#include "trace/codec.h"
#include "trace/format.h"
#include "trace_test_util.h"

namespace memfloor::trace {
namespace {

using testing::Bytes;

template <typename Reader>
void checkHeaderErrors() {
  auto open = [](const Bytes& bytes) {
    MemorySource source(bytes, "run.mftrace");
    Reader reader(source);
  };
  CHECK_THROWS_WITH(open({}), "run.mftrace: empty file");
  CHECK_THROWS_WITH(
      open({'h', 'e', 'l', 'l', 'o', ' ', 'w', 'o', 'r', 'l', 'd', '!', '!', '!', '!', '!', '!'}),
      "run.mftrace: not a memfloor trace (bad magic)");
  CHECK_THROWS_WITH(open({'M', 'F'}), "run.mftrace: not a memfloor trace (bad magic)");
  Bytes short_header = testing::fileHeader();
  short_header.resize(12);
  CHECK_THROWS_WITH(
      open(short_header),
      "run.mftrace: not a memfloor trace (12 bytes, shorter than the 16-byte header)");
  CHECK_THROWS_WITH(open(testing::fileHeader(2, 0)),
                    "run.mftrace: trace major version 2 is newer than this memfloor reads (1)");
  CHECK_THROWS_WITH(open(testing::fileHeader(0, 0)),
                    "run.mftrace: trace major version 0 is not supported");
  CHECK_NOTHROW(open(testing::fileHeader(1, 7)));  // a newer minor reads
}

TEST_CASE("bad headers throw one line naming the file", "[trace][reader]") {
  checkHeaderErrors<FileOrderReader>();
  checkHeaderErrors<TimeOrderReader>();
}

TEST_CASE("a file with a bad header, read from disk", "[trace][reader]") {
  const auto path = std::filesystem::temp_directory_path() /
                    ("memfloor_reader_test_" + std::to_string(::getpid()) + ".txt");
  std::ofstream(path) << "alloc t=1\n";
  FileSource source(path.string());
  CHECK_FALSE(looksLikeBinaryTrace(source));
  CHECK_THROWS_WITH(FileOrderReader(source), path.string() + ": not a memfloor trace (bad magic)");
  std::filesystem::remove(path);
}

TEST_CASE("versions and sniffing", "[trace][reader]") {
  const Bytes bytes = testing::concat({testing::fileHeader(1, 3)});
  MemorySource source(bytes);
  CHECK(looksLikeBinaryTrace(source));
  FileOrderReader reader(source);
  CHECK(reader.major() == 1);
  CHECK(reader.minor() == 3);
  TimeOrderReader time_reader(source);
  CHECK(time_reader.minor() == 3);
  const Bytes tiny{'M', 'F', 'T'};
  CHECK_FALSE(looksLikeBinaryTrace(MemorySource(tiny)));
}

// Every 1.x file reads. 1.0 wrote allocs and frees as varint records only (no memory contexts, no
// packed records): the varint writer's bytes under a 1.0 header are such a file.
template <typename Reader>
void checkReadsMinor(const Bytes& bytes, uint16_t minor, const std::vector<Record>& records) {
  MemorySource source(bytes, "run.mftrace");
  Reader reader(source);
  CHECK(reader.major() == 1);
  CHECK(reader.minor() == minor);
  std::vector<Record> read;
  Record r;
  while (reader.next(r)) read.push_back(r);
  CHECK(reader.end().ending == Ending::kTrailer);
  CHECK(read == records);
}

TEST_CASE("format 1.0 and 1.1 traces read", "[trace][reader]") {
  // The untimed records of every type, then allocs and frees in time order over several chunks:
  // both readers deliver such a file in file order.
  std::vector<Record> records;
  for (const Record& r : testing::everyRecordType()) {
    if (!isTimed(r)) records.push_back(r);
  }
  for (uint64_t i = 0; i < 300; ++i) {
    Alloc a = testing::makeAlloc(1000 + 10 * i, 0x1000 + (i << 12), 64 + i);
    a.thread = i % 3;
    a.stream = static_cast<uint32_t>(i % 2);
    records.emplace_back(a);
    records.emplace_back(testing::makeFree(1005 + 10 * i, a.address));
  }
  records.emplace_back(Trailer{records.size(), 9000});

  Bytes v10 = testing::writeBinary(records, 1024, false, 0, Writer::Encoding::kVarint);
  codec::storeLe16(v10.data() + FileHeaderLayout::kMinorAt, 0);
  checkReadsMinor<FileOrderReader>(v10, 0, records);
  checkReadsMinor<TimeOrderReader>(v10, 0, records);

  Bytes v11 = testing::writeBinary(records, 1024, false);
  codec::storeLe16(v11.data() + FileHeaderLayout::kMinorAt, 1);
  checkReadsMinor<FileOrderReader>(v11, 1, records);
  checkReadsMinor<TimeOrderReader>(v11, 1, records);
  auto packed = [](const Bytes& file) {  // packed allocs and frees in the file
    size_t n = 0;
    for (const testing::ChunkSpan& span : testing::chunkSpans(file)) {
      const uint8_t* p = file.data() + span.offset + kChunkHeaderSize;
      const uint8_t* end = file.data() + span.offset + span.size;
      for (; p < end; p += 2 + p[1]) {  // well-formed: every length fits one byte
        n += p[0] == static_cast<uint8_t>(RecordCode::kAllocPacked) ||
             p[0] == static_cast<uint8_t>(RecordCode::kFreePacked);
      }
    }
    return n;
  };
  CHECK(packed(v10) == 0);
  CHECK(packed(v11) == 600);
}

// 1.2 added the memory kind block (6). Its value means block in every 1.x file: a 1.1 file that
// holds one (no 1.1 writer wrote it) reads it as block too, through both readers and both forms.
TEST_CASE("format 1.2 traces hold blocks; a 1.1 file's kind 6 reads as block", "[trace][reader]") {
  std::vector<Record> records;
  Alloc segment = testing::makeAlloc(100, 0x7f0000000000, 20 << 20);
  records.emplace_back(segment);
  for (uint64_t i = 0; i < 50; ++i) {
    Alloc block = testing::makeAlloc(200 + 10 * i, 0x7f0000000000 + (i << 16), 512);
    block.kind = MemoryKind::kBlock;
    block.stream = 7;
    records.emplace_back(block);
    Free back = testing::makeFree(205 + 10 * i, block.address);
    back.kind = MemoryKind::kBlock;
    back.stream = 7;
    records.emplace_back(back);
  }
  records.emplace_back(Trailer{records.size(), 9000});
  for (const Writer::Encoding encoding : {Writer::Encoding::kPacked, Writer::Encoding::kVarint}) {
    Bytes v12 = testing::writeBinary(records, 1024, false, 0, encoding);
    CHECK(codec::loadLe16(v12.data() + FileHeaderLayout::kMinorAt) == kMinorVersion);
    codec::storeLe16(v12.data() + FileHeaderLayout::kMinorAt, 2);  // what a 1.2 writer wrote
    checkReadsMinor<FileOrderReader>(v12, 2, records);
    checkReadsMinor<TimeOrderReader>(v12, 2, records);
    codec::storeLe16(v12.data() + FileHeaderLayout::kMinorAt, 1);
    checkReadsMinor<FileOrderReader>(v12, 1, records);
    checkReadsMinor<TimeOrderReader>(v12, 1, records);
  }
}

TEST_CASE("describe says how a trace ended", "[trace][reader]") {
  CHECK(describe(TraceEnd{}) == "complete (trailer present)");
  CHECK(describe(TraceEnd{Ending::kTruncated, 4096, "chunk body of 12 bytes, 3 present", 1, 2}) ==
        "truncated at offset 4096: chunk body of 12 bytes, 3 present");
  CHECK(describe(TraceEnd{Ending::kCorrupt, 8192, "checksum mismatch", 1, 2}) ==
        "corrupt chunk at offset 8192: checksum mismatch");
  CHECK(describe(TraceEnd{Ending::kMiscounted, 8192, "the trailer counts 9 records, 5 were read", 3,
                          6}) == "incomplete: the trailer counts 9 records, 5 were read");
}

// A trace of several chunks whose every checksum is sound, with chunk `index` dropped (copies 0)
// or written twice (copies 2).
Bytes withChunkCopies(const Bytes& file, size_t index, int copies) {
  const std::vector<testing::ChunkSpan> spans = testing::chunkSpans(file);
  Bytes out(file.begin(), file.begin() + static_cast<std::ptrdiff_t>(kFileHeaderSize));
  for (size_t i = 0; i < spans.size(); ++i) {
    const auto begin = file.begin() + static_cast<std::ptrdiff_t>(spans[i].offset);
    for (int c = 0; c < (i == index ? copies : 1); ++c) {
      out.insert(out.end(), begin, begin + static_cast<std::ptrdiff_t>(spans[i].size));
    }
  }
  return out;
}

template <typename Reader>
TraceEnd endOf(const Bytes& file) {
  TraceEnd end;
  testing::readAll<Reader>(file, &end);
  return end;
}

TEST_CASE("a chunk dropped or written twice is found by the trailer's count", "[trace][reader]") {
  std::vector<Record> records{StringDef{1, "iteration"}};
  for (uint64_t i = 0; i < 60; ++i) {
    records.emplace_back(testing::makeAlloc(i * 100 + 5, 0x1000 * (i % 7 + 1), i + 1));
    records.emplace_back(testing::makeFree(i * 100 + 50, 0x1000 * (i % 7 + 1)));
  }
  const Bytes file = testing::writeBinary(records, 256, true, 9000);
  const std::vector<testing::ChunkSpan> spans = testing::chunkSpans(file);
  REQUIRE(spans.size() >= 4);
  const uint32_t middle = spans[2].records;
  const uint64_t total = records.size();
  CHECK(endOf<FileOrderReader>(file).ending == Ending::kTrailer);
  CHECK(endOf<TimeOrderReader>(file).ending == Ending::kTrailer);

  const std::string dropped = fmt::format(
      "the trailer counts {} records, {} were read (chunks "
      "are missing)",
      total, total - middle);
  const std::string repeated = fmt::format(
      "the trailer counts {} records, {} were read (chunks "
      "are repeated or added)",
      total, total + middle);
  for (const auto& [copies, detail] : {std::pair{0, dropped}, std::pair{2, repeated}}) {
    INFO("copies of the chunk: " << copies);
    const Bytes damaged = withChunkCopies(file, 2, copies);
    for (const TraceEnd& end : {endOf<FileOrderReader>(damaged), endOf<TimeOrderReader>(damaged)}) {
      CHECK(end.ending == Ending::kMiscounted);
      CHECK(end.detail == detail);
      CHECK(end.trailer_surplus == (copies == 0 ? int64_t{middle} : -int64_t{middle}));
      CHECK(end.offset == damaged.size() - spans.back().size);  // the trailer's chunk
      CHECK(describe(end) == "incomplete: " + detail);
    }
  }
}

}  // namespace
}  // namespace memfloor::trace
