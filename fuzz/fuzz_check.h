// What both fuzz targets check on every record they get: the text and binary round trips.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

#include "trace/format.h"
#include "trace/reader.h"
#include "trace/records.h"
#include "trace/sink.h"
#include "trace/source.h"
#include "trace/text.h"
#include "trace/writer.h"

namespace memfloor::trace::fuzz {

[[noreturn]] inline void failCheck(const char* what, const Record& record) {
  std::ostringstream line;
  writeText(line, record);
  std::fprintf(stderr, "fuzz check failed: %s: %s", what, line.str().c_str());
  std::abort();
}

// writeText then TextReader gives the record back, and the line is canonical.
inline void checkTextRoundTrip(const Record& record) {
  std::ostringstream out;
  writeText(out, record);
  std::istringstream in(out.str());
  TextReader reader(in, "round-trip");
  Record back;
  if (!reader.next(back) || !(back == record)) failCheck("text round trip", record);
  std::ostringstream again;
  writeText(again, back);
  if (again.str() != out.str()) failCheck("canonical text", record);
}

// Writer then FileOrderReader gives the records back (up to and including a trailer; those too
// large for its 4 KiB chunks are left out).
inline void checkBinaryRoundTrip(const std::vector<Record>& records) {
  MemorySink sink;
  Writer writer(sink, 4096);
  if (!writer.begin()) std::abort();
  std::vector<Record> written;
  for (const Record& r : records) {
    if (!writer.write(r)) {
      // A record larger than a chunk is refused by design (a string of 50,000 characters in a
      // 4 KiB chunk); one that fits the largest chunk must be taken.
      MemorySink alone;
      Writer largest(alone, kMaxChunkBody);
      if (!largest.begin() || !largest.write(r)) {
        failCheck("the writer refused a record a reader produced", r);
      }
      continue;
    }
    written.push_back(r);
    if (std::holds_alternative<Trailer>(r)) break;
  }
  if (!writer.flush()) std::abort();
  MemorySource source(sink.bytes(), "round-trip");
  FileOrderReader reader(source);
  Record back;
  size_t i = 0;
  while (reader.next(back)) {
    if (i >= written.size() || !(back == written[i])) failCheck("binary round trip", back);
    ++i;
  }
  if (i != written.size()) failCheck("binary round trip lost records", written.at(i));
}

}  // namespace memfloor::trace::fuzz
