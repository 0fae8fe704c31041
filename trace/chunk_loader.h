// Private to trace/: reads one chunk from a source and verifies its header and checksum.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>

#include "trace/format.h"
#include "trace/source.h"

namespace memfloor::trace {

struct ChunkHeader {
  uint64_t checksum = 0;
  uint32_t body_length = 0;
  uint32_t record_count = 0;
  uint64_t min_timestamp = UINT64_MAX;
  uint64_t max_timestamp = 0;
};

class ChunkLoader {
 public:
  enum class Status { kOk, kEndOfFile, kTruncated, kCorrupt };

  explicit ChunkLoader(const Source& source) : source_(source) {}

  // Reads the chunk starting at offset. kOk: header() and body() hold it, checksum verified.
  // kEndOfFile: offset is the end of the source. kTruncated / kCorrupt: detail() says why.
  Status load(uint64_t offset);

  const ChunkHeader& header() const { return header_; }
  std::span<const uint8_t> body() const {
    return {buffer_.get() + kChunkHeaderSize, header_.body_length};
  }
  uint64_t sizeOnDisk() const { return kChunkHeaderSize + uint64_t{header_.body_length}; }
  const std::string& detail() const { return detail_; }

 private:
  Status fail(Status status, std::string detail);

  const Source& source_;
  ChunkHeader header_;
  std::unique_ptr<uint8_t[]> buffer_;  // chunk header + body, grown to the largest chunk seen
  size_t capacity_ = 0;
  std::string detail_;
};

}  // namespace memfloor::trace
