// Tests of trace/chunk_loader.cpp: each way a chunk can be incomplete or fail its checks.
#include "trace/chunk_loader.h"

#include "trace_test_util.h"

namespace memfloor::trace {
namespace {

using Status = ChunkLoader::Status;
using testing::Bytes;

TEST_CASE("a valid chunk loads and exposes its header and body", "[trace][chunk_loader]") {
  const Bytes body = testing::makeRecord(12, {0, 5});
  const Bytes file = testing::concat({testing::fileHeader(), testing::makeChunk(body, 1)});
  MemorySource source(file);
  ChunkLoader loader(source);
  REQUIRE(loader.load(kFileHeaderSize) == Status::kOk);
  CHECK(loader.header().body_length == body.size());
  CHECK(loader.header().record_count == 1);
  CHECK(loader.header().min_timestamp == UINT64_MAX);
  CHECK(Bytes(loader.body().begin(), loader.body().end()) == body);
  CHECK(loader.sizeOnDisk() == kChunkHeaderSize + body.size());
  CHECK(loader.load(kFileHeaderSize + loader.sizeOnDisk()) == Status::kEndOfFile);
}

TEST_CASE("incomplete and damaged chunks", "[trace][chunk_loader]") {
  const Bytes chunk = testing::makeChunk(testing::makeRecord(12, {0, 5}), 1);
  auto load = [](const Bytes& bytes, std::string* detail = nullptr) {
    MemorySource source(bytes);
    ChunkLoader loader(source);
    const Status status = loader.load(kFileHeaderSize);
    if (detail != nullptr) *detail = loader.detail();
    return status;
  };
  std::string detail;
  Bytes cut = testing::concat({testing::fileHeader(), chunk});
  cut.resize(kFileHeaderSize + 10);
  CHECK(load(cut, &detail) == Status::kTruncated);
  CHECK(detail == "chunk header of 32 bytes, 10 present");
  cut = testing::concat({testing::fileHeader(), chunk});
  cut.pop_back();
  CHECK(load(cut, &detail) == Status::kTruncated);
  CHECK(detail == "chunk body of 4 bytes, 3 present");

  Bytes flipped = testing::concat({testing::fileHeader(), chunk});
  flipped.back() ^= 1;
  CHECK(load(flipped, &detail) == Status::kCorrupt);
  CHECK(detail == "checksum mismatch");

  Bytes huge = testing::concat({testing::fileHeader(), chunk});
  codec::storeLe32(huge.data() + kFileHeaderSize + 8, kMaxChunkBody + 1);
  CHECK(load(huge, &detail) == Status::kCorrupt);
  CHECK(detail == "chunk body length 16777217 exceeds the maximum 16777216");

  Bytes beyond = testing::concat({testing::fileHeader(), chunk});
  codec::storeLe32(beyond.data() + kFileHeaderSize + 8, 1000);  // more than the file holds
  CHECK(load(beyond, &detail) == Status::kTruncated);
  CHECK(detail == "chunk body of 1000 bytes, 4 present");

  CHECK(load(testing::concat({testing::fileHeader(), testing::makeChunk({}, 0)}), &detail) ==
        Status::kCorrupt);
  CHECK(detail == "empty chunk body");
}

TEST_CASE("the loader reuses its buffer across chunks of different sizes", "[trace][chunk_loader]") {
  const Bytes small = testing::makeChunk(testing::makeRecord(12, {0, 5}), 1);
  Bytes big_body;
  for (int i = 0; i < 500; ++i) {
    const Bytes r = testing::makeRecord(12, {1, uint64_t(i)});
    big_body.insert(big_body.end(), r.begin(), r.end());
  }
  const Bytes big = testing::makeChunk(big_body, 500);
  const Bytes file = testing::concat({testing::fileHeader(), small, big, small});
  MemorySource source(file);
  ChunkLoader loader(source);
  uint64_t offset = kFileHeaderSize;
  for (uint32_t expected : {1u, 500u, 1u}) {
    REQUIRE(loader.load(offset) == Status::kOk);
    CHECK(loader.header().record_count == expected);
    offset += loader.sizeOnDisk();
  }
  CHECK(loader.load(offset) == Status::kEndOfFile);
}

}  // namespace
}  // namespace memfloor::trace
