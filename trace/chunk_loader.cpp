// Reads and verifies one chunk: every length checked against the bytes left before it is used.
#include "trace/chunk_loader.h"

#include <fmt/format.h>

#include <algorithm>
#include <utility>

#include "trace/checksum.h"
#include "trace/codec.h"

namespace memfloor::trace {

uint8_t* ChunkBuffer::reserve(size_t bytes) {
  if (capacity_ < bytes) {
    auto bigger = std::make_unique_for_overwrite<uint8_t[]>(bytes);
    if (data_) std::copy(data_.get(), data_.get() + kChunkHeaderSize, bigger.get());
    data_ = std::move(bigger);
    capacity_ = bytes;
  }
  return data_.get();
}

ChunkLoader::Status ChunkLoader::fail(Status status, std::string detail) {
  detail_ = std::move(detail);
  return status;
}

// The header at offset into raw (kChunkHeaderSize bytes) and header, its lengths checked.
ChunkLoader::Status ChunkLoader::readHeader(uint64_t offset, uint8_t* raw, ChunkHeader& header) {
  const uint64_t size = source_.size();
  if (offset >= size) return Status::kEndOfFile;
  const uint64_t left = size - offset;
  const size_t got_header = source_.readAt(offset, raw, kChunkHeaderSize);
  if (got_header < kChunkHeaderSize) {
    return fail(Status::kTruncated,
                fmt::format("chunk header of {} bytes, {} present", kChunkHeaderSize, got_header));
  }
  using L = ChunkHeaderLayout;
  header.checksum = codec::loadLe64(raw + L::kChecksumAt);
  header.body_length = codec::loadLe32(raw + L::kBodyLengthAt);
  header.record_count = codec::loadLe32(raw + L::kRecordCountAt);
  header.min_timestamp = codec::loadLe64(raw + L::kMinTimestampAt);
  header.max_timestamp = codec::loadLe64(raw + L::kMaxTimestampAt);
  const uint32_t body_length = header.body_length;
  if (body_length == 0) return fail(Status::kCorrupt, "empty chunk body");
  if (body_length > kMaxChunkBody) {
    return fail(Status::kCorrupt, fmt::format("chunk body length {} exceeds the maximum {}",
                                              body_length, kMaxChunkBody));
  }
  if (body_length > left - kChunkHeaderSize) {
    return fail(Status::kTruncated, fmt::format("chunk body of {} bytes, {} present", body_length,
                                                left - kChunkHeaderSize));
  }
  return Status::kOk;
}

ChunkLoader::Status ChunkLoader::loadHeader(uint64_t offset, ChunkHeader& header) {
  uint8_t raw[kChunkHeaderSize];
  return readHeader(offset, raw, header);
}

ChunkLoader::Status ChunkLoader::load(uint64_t offset, ChunkBuffer& buffer) {
  ChunkHeader header;  // committed to the buffer once the chunk verified
  const Status status = readHeader(offset, buffer.reserve(kChunkHeaderSize), header);
  if (status != Status::kOk) return status;
  // body_length is now bounded by kMaxChunkBody and by the bytes in the file: safe to allocate.
  const size_t total = kChunkHeaderSize + size_t{header.body_length};
  uint8_t* raw = buffer.reserve(total);
  const size_t got_body =
      source_.readAt(offset + kChunkHeaderSize, raw + kChunkHeaderSize, header.body_length);
  if (got_body < header.body_length) {  // the source shrank since size() was taken
    return fail(Status::kTruncated,
                fmt::format("chunk body of {} bytes, {} present", header.body_length, got_body));
  }
  constexpr size_t kChecksummedAt = ChunkHeaderLayout::kChecksummedAt;
  if (detail::chunkChecksum(raw + kChecksummedAt, total - kChecksummedAt) != header.checksum) {
    return fail(Status::kCorrupt, "checksum mismatch");
  }
  buffer.header_ = header;
  return Status::kOk;
}

}  // namespace memfloor::trace
