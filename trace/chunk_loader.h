// Private to trace/: reads one chunk from a source and verifies its header and checksum.
#pragma once

#include <cstddef>
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

// The bytes of one loaded chunk: in a memory source, the chunk where it lies; in a file, a copy in
// a buffer reused across loads (it grows to the largest chunk seen).
class ChunkBuffer {
 public:
  const ChunkHeader& header() const { return header_; }
  std::span<const uint8_t> body() const { return {chunk_ + kChunkHeaderSize, header_.body_length}; }
  uint64_t sizeOnDisk() const { return kChunkHeaderSize + uint64_t{header_.body_length}; }

 private:
  friend class ChunkLoader;
  uint8_t* reserve(size_t bytes);  // keeps the first kChunkHeaderSize bytes

  ChunkHeader header_;
  const uint8_t* chunk_ = nullptr;  // the verified chunk: in the memory source, or data_
  std::unique_ptr<uint8_t[]> data_;
  size_t capacity_ = 0;
};

class ChunkLoader {
 public:
  enum class Status { kOk, kEndOfFile, kTruncated, kCorrupt };

  explicit ChunkLoader(const Source& source) : source_(source), memory_(source.inMemory()) {}

  // Reads the chunk starting at offset into buffer (where it lies in a memory source, else a
  // copy). kOk: the checksum verified. kEndOfFile: offset is the end of the source. kTruncated /
  // kCorrupt: detail() says why. body_hint: the body length loadHeader() found there, if known: a
  // file's chunk is then read in one call rather than two (a hint the header belies costs a read).
  Status load(uint64_t offset, ChunkBuffer& buffer, uint32_t body_hint = 0);
  // Reads only the chunk header at offset and checks that its body length is allowed and fits in
  // the source. kOk does not mean the chunk verifies: its checksum is checked by load().
  Status loadHeader(uint64_t offset, ChunkHeader& header);
  const std::string& detail() const { return detail_; }

 private:
  Status fail(Status status, std::string detail);
  Status checkHeader(uint64_t offset, const uint8_t* raw, size_t got, ChunkHeader& header);
  const uint8_t* read(uint64_t offset, uint32_t body_hint, ChunkHeader& header,
                      ChunkBuffer& buffer);

  const Source& source_;
  std::span<const uint8_t> memory_;  // the source's bytes where it is held in memory
  Status status_ = Status::kOk;      // of the last fail()
  std::string detail_;
};

}  // namespace memfloor::trace
