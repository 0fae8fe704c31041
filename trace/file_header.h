// Private to trace/: the checks on a binary trace's file header, shared by both readers.
#pragma once

#include <cstdint>

#include "trace/source.h"

namespace memfloor::trace {

struct FileHeader {
  uint16_t major = 0;
  uint16_t minor = 0;
};

// Throws memfloor::Error naming the source when it is empty, is not a trace, is shorter than the
// header or has a major version this code does not read.
FileHeader readFileHeader(const Source& source);

}  // namespace memfloor::trace
