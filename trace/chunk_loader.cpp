// Reads and verifies one chunk: every length checked against the bytes left before it is used.
#include "trace/chunk_loader.h"

#define XXH_INLINE_ALL
#include <xxhash.h>

#include <fmt/format.h>

#include <utility>

#include "trace/codec.h"

namespace memfloor::trace {

ChunkLoader::Status ChunkLoader::fail(Status status, std::string detail) {
  detail_ = std::move(detail);
  return status;
}

ChunkLoader::Status ChunkLoader::load(uint64_t offset) {
  const uint64_t size = source_.size();
  if (offset >= size) return Status::kEndOfFile;
  const uint64_t left = size - offset;
  if (capacity_ < kChunkHeaderSize) {
    buffer_.reset(new uint8_t[kChunkHeaderSize]);
    capacity_ = kChunkHeaderSize;
  }
  uint8_t* raw = buffer_.get();
  const size_t got_header = source_.readAt(offset, raw, kChunkHeaderSize);
  if (got_header < kChunkHeaderSize) {
    return fail(Status::kTruncated,
                fmt::format("chunk header of {} bytes, {} present", kChunkHeaderSize, got_header));
  }
  header_.checksum = codec::loadLe64(raw);
  header_.body_length = codec::loadLe32(raw + 8);
  header_.record_count = codec::loadLe32(raw + 12);
  header_.min_timestamp = codec::loadLe64(raw + 16);
  header_.max_timestamp = codec::loadLe64(raw + 24);
  const uint32_t body_length = header_.body_length;
  if (body_length == 0) return fail(Status::kCorrupt, "empty chunk body");
  if (body_length > kMaxChunkBody) {
    return fail(Status::kCorrupt, fmt::format("chunk body length {} exceeds the maximum {}",
                                              body_length, kMaxChunkBody));
  }
  if (body_length > left - kChunkHeaderSize) {
    return fail(Status::kTruncated, fmt::format("chunk body of {} bytes, {} present", body_length,
                                                left - kChunkHeaderSize));
  }
  // body_length is now bounded by kMaxChunkBody and by the bytes in the file: safe to allocate.
  const size_t total = kChunkHeaderSize + size_t{body_length};
  if (capacity_ < total) {
    auto bigger = std::make_unique_for_overwrite<uint8_t[]>(total);
    std::copy(raw, raw + kChunkHeaderSize, bigger.get());
    buffer_ = std::move(bigger);
    capacity_ = total;
    raw = buffer_.get();
  }
  const size_t got_body = source_.readAt(offset + kChunkHeaderSize, raw + kChunkHeaderSize,
                                         body_length);
  if (got_body < body_length) {  // the source shrank since size() was taken
    return fail(Status::kTruncated,
                fmt::format("chunk body of {} bytes, {} present", body_length, got_body));
  }
  if (XXH3_64bits(raw + 8, total - 8) != header_.checksum) {
    return fail(Status::kCorrupt, "checksum mismatch");
  }
  return Status::kOk;
}

}  // namespace memfloor::trace
