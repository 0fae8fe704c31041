// Tests of trace/chunk_loader.cpp: each way a chunk can be incomplete or fail its checks.
#include "trace/chunk_loader.h"

#define XXH_INLINE_ALL
#include <xxhash.h>

#include <random>

#include "trace/checksum.h"
#include "trace_test_util.h"

namespace memfloor::trace {
namespace {

using Status = ChunkLoader::Status;
using testing::Bytes;

// A memory source that does not say it is one: its chunks are copied, as a file's are.
class CopiedSource final : public Source {
 public:
  explicit CopiedSource(const Bytes& bytes) : memory_(bytes) {}
  uint64_t size() const override { return memory_.size(); }
  size_t readAt(uint64_t offset, void* out, size_t n) const override {
    ++reads;
    return memory_.readAt(offset, out, n);
  }
  const std::string& name() const override { return memory_.name(); }

  mutable int reads = 0;

 private:
  MemorySource memory_;
};

// The reader's checksum (AVX2 where the CPU has it) is the writer's portable XXH3_64bits, at every
// length that takes another code path and at unaligned starts.
TEST_CASE("the reader's checksum equals XXH3_64bits", "[trace][chunk_loader]") {
  std::mt19937_64 rng(5);
  std::vector<uint8_t> data(70000);
  for (uint8_t& b : data) b = static_cast<uint8_t>(rng());
  for (size_t size : {0, 1, 3, 16, 17, 128, 129, 240, 241, 1024, 1025, 4096, 65536, 69999}) {
    for (size_t start : {0, 1}) {
      INFO("size " << size << " start " << start);
      CHECK(detail::chunkChecksum(data.data() + start, size) ==
            XXH3_64bits(data.data() + start, size));
    }
  }
}

TEST_CASE("a valid chunk loads and exposes its header and body", "[trace][chunk_loader]") {
  const Bytes body = testing::makeRecord(12, {0, 5});
  const Bytes file = testing::concat({testing::fileHeader(), testing::makeChunk(body, 1)});
  const bool copied = GENERATE(false, true);
  INFO((copied ? "copied" : "in place"));
  const MemorySource memory(file);
  const CopiedSource copy(file);
  ChunkLoader loader(copied ? static_cast<const Source&>(copy) : memory);
  ChunkBuffer buffer;
  REQUIRE(loader.load(kFileHeaderSize, buffer) == Status::kOk);
  // A memory source's chunk is not copied: the body is where the bytes are.
  CHECK((buffer.body().data() == file.data() + kFileHeaderSize + kChunkHeaderSize) == !copied);
  CHECK(buffer.header().body_length == body.size());
  CHECK(buffer.header().record_count == 1);
  CHECK(buffer.header().min_timestamp == UINT64_MAX);
  CHECK(Bytes(buffer.body().begin(), buffer.body().end()) == body);
  CHECK(buffer.sizeOnDisk() == kChunkHeaderSize + body.size());
  CHECK(loader.load(kFileHeaderSize + buffer.sizeOnDisk(), buffer) == Status::kEndOfFile);
}

TEST_CASE("incomplete and damaged chunks", "[trace][chunk_loader]") {
  const Bytes chunk = testing::makeChunk(testing::makeRecord(12, {0, 5}), 1);
  const bool copied = GENERATE(false, true);
  INFO((copied ? "copied" : "in place"));
  auto load = [copied](const Bytes& bytes, std::string* detail = nullptr) {
    const MemorySource memory(bytes);
    const CopiedSource copy(bytes);
    ChunkLoader loader(copied ? static_cast<const Source&>(copy) : memory);
    ChunkBuffer buffer;
    const Status status = loader.load(kFileHeaderSize, buffer);
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
  codec::storeLe32(huge.data() + kFileHeaderSize + ChunkHeaderLayout::kBodyLengthAt,
                   kMaxChunkBody + 1);
  CHECK(load(huge, &detail) == Status::kCorrupt);
  CHECK(detail == "chunk body length 16777217 exceeds the maximum 16777216");

  Bytes beyond = testing::concat({testing::fileHeader(), chunk});
  // more than the file holds
  codec::storeLe32(beyond.data() + kFileHeaderSize + ChunkHeaderLayout::kBodyLengthAt, 1000);
  CHECK(load(beyond, &detail) == Status::kTruncated);
  CHECK(detail == "chunk body of 1000 bytes, 4 present");

  CHECK(load(testing::concat({testing::fileHeader(), testing::makeChunk({}, 0)}), &detail) ==
        Status::kCorrupt);
  CHECK(detail == "empty chunk body");
}

TEST_CASE("the loader reuses its buffer across chunks of different sizes",
          "[trace][chunk_loader]") {
  const Bytes small = testing::makeChunk(testing::makeRecord(12, {0, 5}), 1);
  Bytes big_body;
  for (int i = 0; i < 500; ++i) {
    const Bytes r = testing::makeRecord(12, {1, uint64_t(i)});
    big_body.insert(big_body.end(), r.begin(), r.end());
  }
  const Bytes big = testing::makeChunk(big_body, 500);
  const Bytes file = testing::concat({testing::fileHeader(), small, big, small});
  const bool copied = GENERATE(false, true);
  INFO((copied ? "copied" : "in place"));
  const MemorySource memory(file);
  const CopiedSource copy(file);
  ChunkLoader loader(copied ? static_cast<const Source&>(copy) : memory);
  ChunkBuffer buffer;
  uint64_t offset = kFileHeaderSize;
  for (uint32_t expected : {1u, 500u, 1u}) {
    REQUIRE(loader.load(offset, buffer) == Status::kOk);
    CHECK(buffer.header().record_count == expected);
    CHECK(buffer.body().size() == buffer.header().body_length);
    offset += buffer.sizeOnDisk();
  }
  CHECK(loader.load(offset, buffer) == Status::kEndOfFile);
}

TEST_CASE("a hinted body length reads a copied chunk in one call; a wrong hint costs one more",
          "[trace][chunk_loader]") {
  Bytes body;
  for (int i = 0; i < 20; ++i) {
    const Bytes r = testing::makeRecord(12, {1, uint64_t(i)});
    body.insert(body.end(), r.begin(), r.end());
  }
  const Bytes file = testing::concat({testing::fileHeader(), testing::makeChunk(body, 20)});
  const auto length = static_cast<uint32_t>(body.size());
  for (const auto& [hint, reads] :
       {std::pair{length, 1}, std::pair{0u, 2}, std::pair{length - 1, 2},
        std::pair{length + 100, 1}, std::pair{kMaxChunkBody + 1, 1}}) {
    INFO("hint " << hint);
    const CopiedSource source(file);
    ChunkLoader loader(source);
    ChunkBuffer buffer;
    REQUIRE(loader.load(kFileHeaderSize, buffer, hint) == Status::kOk);
    CHECK(Bytes(buffer.body().begin(), buffer.body().end()) == body);
    CHECK(source.reads == reads);
  }
}

}  // namespace
}  // namespace memfloor::trace
