// The text form of trace records, for hand-written fixtures: one record per line.
#pragma once

#include <istream>
#include <memory>
#include <ostream>
#include <string>

#include "trace/records.h"

namespace memfloor::trace {

// Writes one record as one line in the canonical form (docs/trace-format.md); round-trips exactly
// through TextReader.
void writeText(std::ostream& out, const Record& record);

// Reads the text form. Blank lines and '#' comments are skipped. Throws memfloor::Error as
// "<name>:<line>: <what is wrong>" on a malformed line.
class TextReader {
 public:
  TextReader(std::istream& in, std::string name);
  ~TextReader();
  bool next(Record& out);
  size_t line() const;  // the line of the last record next() gave (1-based; 0 before the first)

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace memfloor::trace
