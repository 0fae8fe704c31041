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
  status_ = status;
  detail_ = std::move(detail);
  return status;
}

// The header at offset, of which raw holds the first `got` bytes, its lengths checked.
ChunkLoader::Status ChunkLoader::checkHeader(uint64_t offset, const uint8_t* raw, size_t got,
                                             ChunkHeader& header) {
  if (got < kChunkHeaderSize) {
    return fail(Status::kTruncated,
                fmt::format("chunk header of {} bytes, {} present", kChunkHeaderSize, got));
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
  const uint64_t left = source_.size() - offset - kChunkHeaderSize;  // offset < size: checked
  if (body_length > left) {
    return fail(Status::kTruncated,
                fmt::format("chunk body of {} bytes, {} present", body_length, left));
  }
  return Status::kOk;
}

ChunkLoader::Status ChunkLoader::loadHeader(uint64_t offset, ChunkHeader& header) {
  if (offset >= source_.size()) return Status::kEndOfFile;
  uint8_t raw[kChunkHeaderSize];
  return checkHeader(offset, raw, source_.readAt(offset, raw, kChunkHeaderSize), header);
}

// The chunk at offset, its header checked: where it lies in a memory source, else copied into
// buffer's memory. Null when it is not whole (fail() said why).
const uint8_t* ChunkLoader::read(uint64_t offset, uint32_t body_hint, ChunkHeader& header,
                                 ChunkBuffer& buffer) {
  if (!memory_.empty()) {  // offset < size: checked
    const uint8_t* chunk = memory_.data() + offset;
    const auto got =
        static_cast<size_t>(std::min<uint64_t>(kChunkHeaderSize, source_.size() - offset));
    return checkHeader(offset, chunk, got, header) == Status::kOk ? chunk : nullptr;
  }
  // The header, and the body where its length is hinted (a read costs microseconds of its own),
  // never more than the file holds.
  const auto first = static_cast<size_t>(std::min<uint64_t>(
      kChunkHeaderSize + uint64_t{std::min(body_hint, kMaxChunkBody)}, source_.size() - offset));
  uint8_t* raw = buffer.reserve(std::max<size_t>(first, kChunkHeaderSize));
  const size_t got = source_.readAt(offset, raw, first);
  if (checkHeader(offset, raw, got, header) != Status::kOk) return nullptr;
  if (got - kChunkHeaderSize >= header.body_length) return raw;
  // body_length is now bounded by kMaxChunkBody and by the bytes in the file: safe to allocate.
  raw = buffer.reserve(kChunkHeaderSize + size_t{header.body_length});
  const size_t got_body =
      source_.readAt(offset + kChunkHeaderSize, raw + kChunkHeaderSize, header.body_length);
  if (got_body < header.body_length) {  // the source shrank since size() was taken
    fail(Status::kTruncated,
         fmt::format("chunk body of {} bytes, {} present", header.body_length, got_body));
    return nullptr;
  }
  return raw;
}

ChunkLoader::Status ChunkLoader::load(uint64_t offset, ChunkBuffer& buffer, uint32_t body_hint) {
  if (offset >= source_.size()) return Status::kEndOfFile;
  ChunkHeader header;  // committed to the buffer once the chunk verified
  const uint8_t* chunk = read(offset, body_hint, header, buffer);
  if (chunk == nullptr) return status_;
  constexpr size_t kChecksummedAt = ChunkHeaderLayout::kChecksummedAt;
  const size_t total = kChunkHeaderSize + size_t{header.body_length};
  if (detail::chunkChecksum(chunk + kChecksummedAt, total - kChecksummedAt) != header.checksum) {
    return fail(Status::kCorrupt, "checksum mismatch");
  }
  buffer.header_ = header;
  buffer.chunk_ = chunk;
  return Status::kOk;
}

}  // namespace memfloor::trace
