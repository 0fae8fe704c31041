// Private to trace/: the checks both readers make of a binary trace: its file header, and the
// trailer's record count against the records read.
#pragma once

#include <cstdint>

#include "trace/reader.h"
#include "trace/source.h"

namespace memfloor::trace {

struct FileHeader {
  uint16_t major = 0;
  uint16_t minor = 0;
};

// Throws memfloor::Error naming the source when it is empty, is not a trace, is shorter than the
// header or has a major version this code does not read.
FileHeader readFileHeader(const Source& source);

// How a file whose trailer chunk (at chunk_offset, ending at trailer_end) was read ends: complete,
// corrupt with bytes after the trailer chunk, or miscounted when the trailer's record count is not
// the records read before it (a chunk dropped or written twice leaves every checksum sound, and
// only this count tells). Sets end's ending, offset, detail and trailer_surplus.
void endAtTrailer(TraceEnd& end, const Source& source, uint64_t chunk_offset, uint64_t trailer_end,
                  uint64_t trailer_count, uint64_t read_before_trailer);

}  // namespace memfloor::trace
