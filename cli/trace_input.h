// Opens a trace given on the command line, binary or text, as a source the readers take.
#pragma once

#include <istream>
#include <memory>
#include <string>
#include <vector>

#include "trace/source.h"

namespace memfloor::cli {

// Encodes text-form records into a binary trace in memory, record for record: a trailer line
// becomes the trailer chunk, and a text without one gives a trace without one.
std::vector<uint8_t> encodeTextTrace(std::istream& in, const std::string& name);

// A binary trace is read from the file; a text trace is encoded into memory first so that both go
// through the same readers. Throws memfloor::Error naming the path on unusable input.
class TraceInputFile {
 public:
  explicit TraceInputFile(const std::string& path);
  const trace::Source& source() const { return *source_; }
  bool wasText() const { return !encoded_.empty(); }

 private:
  std::vector<uint8_t> encoded_;
  std::unique_ptr<trace::Source> source_;
};

}  // namespace memfloor::cli
