// TraceFile: a trace file, binary or text form, opened as the source the readers take.
#pragma once

#include <cstdint>
#include <istream>
#include <memory>
#include <string>
#include <vector>

#include "trace/source.h"
#include "trace/writer.h"

namespace memfloor::trace {

// The largest text trace read: 1 GiB. The text form is for hand-written fixtures and traces
// converted to read; it is held in memory encoded, and a larger one belongs in the binary form.
inline constexpr uint64_t kMaxTextTraceBytes = uint64_t{1} << 30;

// Encodes text-form records into a binary trace in memory, record for record, in chunks of at most
// chunk_bytes: a trailer line becomes the trailer chunk, and a text without one gives a trace
// without one. Throws memfloor::Error as "<name>:<line>: ..." on a malformed line, and on a record
// that does not fit a chunk (a string, stack or command line longer than about chunk_bytes).
std::vector<uint8_t> encodeTextTrace(std::istream& in, const std::string& name,
                                     uint32_t chunk_bytes = Writer::kDefaultChunkBytes);

// encodeTextTrace of the file at `path`, opened through common::InputFile (a regular file of at
// most kMaxTextTraceBytes; a pipe or a device is refused, never read).
std::vector<uint8_t> encodeTextTraceFile(const std::string& path);

// A binary trace is read from the file; a text trace (.txt) and a PyTorch memory snapshot (a
// pickle, or .json: trace/torch_snapshot_reader.h) are encoded into memory first, so that all go
// through the same readers. Throws memfloor::Error naming the path on unusable input.
class TraceFile {
 public:
  explicit TraceFile(const std::string& path);
  const Source& source() const { return *source_; }
  bool wasText() const { return !encoded_.empty(); }  // or a snapshot: encoded in memory

 private:
  std::vector<uint8_t> encoded_;
  std::unique_ptr<Source> source_;
};

}  // namespace memfloor::trace
