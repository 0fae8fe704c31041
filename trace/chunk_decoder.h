// Private to trace/: decodes the records of one verified chunk body, checking every field.
//
// Two ways in: ChunkDecoder walks a body in file order, decoding each record straight into the
// caller's Record (the file-order reader); indexChunk() reads only the framing and the timestamps
// of the events (and the untimed records whole) so that events can be sorted by (timestamp,
// offset) and decoded later, one by one, with decodeEvent() (the time-order reader).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "trace/chunk_loader.h"
#include "trace/records.h"

namespace memfloor::trace::detail {

class ChunkDecoder {
 public:
  // Starts on a verified chunk; body must outlive the calls to next().
  void reset(const ChunkHeader& header, std::span<const uint8_t> body);
  // The next record in file order (unknown record types are skipped). False at the end of the
  // body or at a problem: then problem() says what, and the records before it were delivered.
  bool next(Record& out);
  const std::string& problem() const { return problem_; }
  bool afterTrailer() const { return after_trailer_; }  // the last record was the trailer

 private:
  bool fail(std::string problem);

  ChunkHeader header_;
  const uint8_t* begin_ = nullptr;
  const uint8_t* p_ = nullptr;
  const uint8_t* end_ = nullptr;
  uint64_t timestamp_ = 0;  // the previous event's: the delta base
  uint64_t min_timestamp_ = UINT64_MAX;
  uint64_t max_timestamp_ = 0;
  uint32_t records_ = 0;
  bool after_trailer_ = false;
  bool done_ = true;
  std::string problem_;
};

// Where an event lies in its chunk body and when it happened.
struct EventKey {
  uint64_t timestamp;
  uint32_t offset;  // of the record's type byte; increases in file order
  friend bool operator<(const EventKey& a, const EventKey& b) {
    return a.timestamp != b.timestamp ? a.timestamp < b.timestamp : a.offset < b.offset;
  }
};

struct ChunkIndex {
  std::vector<EventKey> events;  // in file order; by (timestamp, offset) after sortEvents()
  std::vector<Record> untimed;   // definitions, metadata and bookkeeping, in file order
  bool has_trailer = false;      // the trailer is kept apart: it is delivered last
  Trailer trailer;
  bool sorted = true;  // events are already in timestamp order
};

// Indexes a verified chunk: the framing of every record, the timestamp of every event, every
// untimed record decoded whole, and the header's counts and timestamps checked. Returns "" or the
// problem (the chunk is then unusable as a whole).
std::string indexChunk(const ChunkHeader& header, std::span<const uint8_t> body, ChunkIndex& index);

// Sorts index.events by (timestamp, offset), stably: a radix sort on the timestamps' offset from
// the chunk's smallest (the events come in file order, so equal timestamps keep it). scratch is
// reused memory.
void sortEvents(ChunkIndex& index, std::vector<EventKey>& scratch);

// Decodes the event that indexChunk() found at key.offset into out, with key's timestamp. False
// when one of the fields that indexChunk() did not read is bad: problem then says what.
bool decodeEvent(std::span<const uint8_t> body, const EventKey& key, Record& out,
                 std::string& problem);

}  // namespace memfloor::trace::detail
