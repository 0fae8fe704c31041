// Tests of trace/file_order_reader.cpp: round trips, truncation at every byte, byte flips.
#include <random>

#include "common/error.h"
#include "trace/reader.h"
#include "trace_test_util.h"

namespace memfloor::trace {
namespace {

using testing::Bytes;

std::vector<Record> manyRecords(size_t n) {
  std::vector<Record> records{StringDef{1, "iteration"}};
  for (size_t i = 0; i < n; ++i) {
    if (i % 10 == 0) records.emplace_back(Marker{i * 100, 1, 0, 1, 0, MarkerType::kPush});
    records.emplace_back(testing::makeAlloc(i * 100 + 5, 0x1000 * (i % 7), i));
    records.emplace_back(testing::makeFree(i * 100 + 50, 0x1000 * (i % 7)));
  }
  return records;
}

TEST_CASE("every record type round-trips through the binary form", "[trace][file_order]") {
  const std::vector<Record> records = testing::everyRecordType();
  for (uint32_t chunk_bytes : {Writer::kDefaultChunkBytes, Writer::kMinChunkBytes}) {
    TraceEnd end;
    const Bytes file = testing::writeBinary(records, chunk_bytes, true, 123);
    std::vector<Record> read = testing::readAll<FileOrderReader>(file, &end);
    std::vector<Record> expected = records;
    expected.emplace_back(Trailer{records.size(), 123});
    CHECK(read == expected);
    CHECK(end.ending == Ending::kTrailer);
    CHECK(end.offset == file.size());
    CHECK(end.records == expected.size());
    CHECK(end.chunks == testing::chunkSpans(file).size());
    CHECK(describe(end) == "complete (trailer present)");
  }
}

TEST_CASE("a copied trailer round-trips as written", "[trace][file_order]") {
  std::vector<Record> records{StringDef{1, "x"}, Trailer{99, 7}};
  const Bytes file = testing::writeBinary(records, Writer::kDefaultChunkBytes, false);
  CHECK(testing::readAll<FileOrderReader>(file) == records);
}

TEST_CASE("without a trailer the trace reads as truncated", "[trace][file_order]") {
  const Bytes file = testing::writeBinary(manyRecords(20), 256, false);
  TraceEnd end;
  CHECK(testing::readAll<FileOrderReader>(file, &end) == manyRecords(20));
  CHECK(end.ending == Ending::kTruncated);
  CHECK(end.offset == file.size());
  CHECK(end.detail == "no trailer after the last complete chunk");
  const Bytes header_only = testing::fileHeader();
  CHECK(testing::readAll<FileOrderReader>(header_only, &end).empty());
  CHECK(end.ending == Ending::kTruncated);
  CHECK(end.offset == kFileHeaderSize);
}

// The records a reader must deliver when it stops before chunk `stop`.
std::vector<Record> prefix(const std::vector<Record>& all,
                           const std::vector<testing::ChunkSpan>& spans, size_t stop) {
  size_t n = 0;
  for (size_t i = 0; i < stop; ++i) n += spans[i].records;
  return {all.begin(), all.begin() + static_cast<std::ptrdiff_t>(std::min(n, all.size()))};
}

TEST_CASE("truncated at every byte: the complete chunks read, never a crash",
          "[trace][file_order]") {
  std::vector<Record> all = manyRecords(25);
  const Bytes file = testing::writeBinary(all, 256, true, 99999);
  all.emplace_back(Trailer{all.size(), 99999});
  const auto spans = testing::chunkSpans(file);
  REQUIRE(spans.size() >= 4);
  for (size_t length = 0; length <= file.size(); ++length) {
    INFO("length " << length);
    const Bytes cut(file.begin(), file.begin() + static_cast<std::ptrdiff_t>(length));
    if (length < kFileHeaderSize) {
      CHECK_THROWS_AS(testing::readAll<FileOrderReader>(cut), Error);
      continue;
    }
    size_t complete = 0;
    while (complete < spans.size() && spans[complete].offset + spans[complete].size <= length) {
      ++complete;
    }
    TraceEnd end;
    CHECK(testing::readAll<FileOrderReader>(cut, &end) == prefix(all, spans, complete));
    CHECK(end.chunks == complete);
    if (length == file.size()) {
      CHECK(end.ending == Ending::kTrailer);
    } else {
      CHECK(end.ending == Ending::kTruncated);
      CHECK(end.offset == (complete < spans.size() ? spans[complete].offset : length));
    }
  }
}

TEST_CASE("random byte flips: corrupt or truncated, records before intact", "[trace][file_order]") {
  std::vector<Record> all = manyRecords(12);
  const Bytes file = testing::writeBinary(all, 256, true, 5);
  all.emplace_back(Trailer{all.size(), 5});
  const auto spans = testing::chunkSpans(file);
  std::mt19937_64 rng(20261129);
  for (int trial = 0; trial < 400; ++trial) {
    Bytes damaged = file;
    const size_t at = rng() % damaged.size();
    damaged[at] ^= static_cast<uint8_t>(1 + rng() % 255);
    INFO("byte " << at);
    if (at < kFileHeaderSize) {  // the header: refused, or (reserved/minor bytes) read as usual
      std::vector<Record> read;
      try {
        read = testing::readAll<FileOrderReader>(damaged);
      } catch (const Error&) {
        CHECK(at < 10);  // magic or major
        continue;
      }
      CHECK(read == all);
      continue;
    }
    size_t hit = 0;
    while (spans[hit].offset + spans[hit].size <= at) ++hit;
    TraceEnd end;
    CHECK(testing::readAll<FileOrderReader>(damaged, &end) == prefix(all, spans, hit));
    CHECK((end.ending == Ending::kCorrupt || end.ending == Ending::kTruncated));
    CHECK(end.offset == spans[hit].offset);
  }
}

TEST_CASE("unknown record codes are skipped; data after the trailer is reported",
          "[trace][file_order]") {
  const Bytes body = testing::concat({testing::makeRecord(1, {1, 0}), testing::makeRecord(99, {4}),
                                      testing::makeRecord(12, {0, 3})});
  const Bytes trailer = testing::makeChunk(testing::makeRecord(13, {3, 0}), 1);
  Bytes file = testing::concat({testing::fileHeader(1, 4), testing::makeChunk(body, 3), trailer});
  TraceEnd end;
  const std::vector<Record> expected{StringDef{1, ""}, Dropped{DropSource::kCupti, 3},
                                     Trailer{3, 0}};
  CHECK(testing::readAll<FileOrderReader>(file, &end) == expected);
  CHECK(end.ending == Ending::kTrailer);
  file.insert(file.end(), {1, 2, 3});
  CHECK(testing::readAll<FileOrderReader>(file, &end) == expected);
  CHECK(end.ending == Ending::kCorrupt);
  CHECK(describe(end) == "corrupt chunk at offset " + std::to_string(file.size() - 3) +
                             ": 3 bytes after the trailer chunk");
}

TEST_CASE("a chunk that verifies but does not decode ends the trace there", "[trace][file_order]") {
  const Bytes good = testing::makeChunk(testing::makeRecord(12, {0, 1}), 1);
  const Bytes bad = testing::makeChunk(
      testing::concat({testing::makeRecord(12, {0, 2}), testing::makeRecord(1, {0, 0})}), 2);
  const Bytes file = testing::concat({testing::fileHeader(), good, bad, good});
  TraceEnd end;
  // the records before the bad one are delivered; nothing after it
  CHECK(testing::readAll<FileOrderReader>(file, &end) ==
        std::vector<Record>{Dropped{DropSource::kCupti, 1}, Dropped{DropSource::kCupti, 2}});
  CHECK(end.ending == Ending::kCorrupt);
  CHECK(end.offset == kFileHeaderSize + good.size());
  CHECK(end.detail == "string (type 1) at body offset 4: id 0");
  CHECK(end.chunks == 1);
}

TEST_CASE("fuzz findings kept in testdata read without a crash", "[trace][file_order]") {
  for (const std::string& path : testing::testdataFiles("regressions/binary")) {
    INFO(path);
    const Bytes bytes = testing::readFile(path);
    try {
      testing::readAll<FileOrderReader>(bytes);
    } catch (const Error&) {
    }
  }
}

}  // namespace
}  // namespace memfloor::trace
