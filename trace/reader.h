// Decodes a binary trace in file order or in timestamp order, streaming, and says how it ended.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>

#include "trace/event.h"
#include "trace/records.h"
#include "trace/source.h"

namespace memfloor::trace {

enum class Ending {
  kTrailer,     // the writer closed cleanly
  kTruncated,   // the file stops inside a chunk or after the last complete chunk, no trailer
  kCorrupt,     // a chunk failed its checksum or did not decode; records before it were read
  kMiscounted,  // every chunk verified, but the trailer counts other records than were read
};

struct TraceEnd {
  Ending ending = Ending::kTrailer;
  uint64_t offset = 0;   // where reading stopped (start of the bad or incomplete chunk)
  std::string detail;    // e.g. "checksum mismatch", "chunk body of 12 bytes, 3 present"
  uint64_t chunks = 0;   // complete chunks read
  uint64_t records = 0;  // records delivered by next(), the trailer included
  // kMiscounted: the records the trailer counts beyond those read (negative: fewer), so that a
  // copy of the trace (symbolize) keeps the difference rather than hiding it.
  int64_t trailer_surplus = 0;
};

// One line for users: "complete (trailer present)", "truncated at offset 4096: ...",
// "corrupt chunk at offset 8192: checksum mismatch", "incomplete: the trailer counts ...".
std::string describe(const TraceEnd& end);

// True when the source starts with the trace magic.
bool looksLikeBinaryTrace(const Source& source);

// Records exactly as written. Throws memfloor::Error (naming the source) when the source is empty,
// is not a trace, or has a newer major version; problems after the header end the stream instead
// and are reported by end(). Every complete chunk before the problem is delivered; a chunk that
// passed its checksum but does not decode is delivered up to the bad record.
class FileOrderReader {
 public:
  explicit FileOrderReader(const Source& source);
  ~FileOrderReader();
  bool next(Record& out);       // false at the end
  const TraceEnd& end() const;  // meaningful once next() returned false
  uint16_t major() const;
  uint16_t minor() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Timed records in timestamp order, stable (equal timestamps keep file order); definitions,
// metadata and bookkeeping records are delivered no later than the first timed record that follows
// them in the file (each chunk's, when it is loaded), and the trailer last. Memory stays
// proportional to how far records are out of order, not to their number: a first pass reads the
// chunk headers with their timestamp ranges, the second verifies and merges the chunks
// (docs/trace-format.md has the algorithm). Errors and endings as for FileOrderReader; a chunk that
// passed its checksum but does not decode may be partly delivered.
class TimeOrderReader {
 public:
  // One delivery of nextBatch(): untimed records (the trailer last of all) or a block of events in
  // timestamp order; exactly one of the two is non-empty. Both stay valid until the next call; the
  // caller may move from the records.
  struct Batch {
    std::span<Record> records;
    std::span<const Event* const> events;
  };

  explicit TimeOrderReader(const Source& source);
  ~TimeOrderReader();
  // The same stream two ways; do not mix them on one reader. nextBatch() is the fast one: events
  // come without a Record in between.
  bool next(Record& out);
  bool nextBatch(Batch& out);
  const TraceEnd& end() const;
  uint16_t major() const;
  uint16_t minor() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace memfloor::trace
