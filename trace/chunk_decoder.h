// Private to trace/: decodes the records of one verified chunk body, checking every field.
//
// Two ways in: ChunkDecoder walks a body in file order, decoding each record straight into the
// caller's Record (the file-order reader); indexChunk() decodes a whole chunk at once, its events
// into compact Events that are sorted by timestamp and merged across chunks (the time-order
// reader), its untimed records whole.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "trace/chunk_loader.h"
#include "trace/event.h"
#include "trace/record_decoder.h"
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
  // Once next() returned false without a problem: the chunk's records as the writer counts them
  // (memory contexts are framing, not records of the trace), the trailer included.
  uint32_t traceRecords() const { return records_ - context_records_; }
  uint64_t trailerCount() const { return trailer_count_; }  // the trailer's, once afterTrailer()

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
  uint32_t context_records_ = 0;
  uint64_t trailer_count_ = 0;
  bool after_trailer_ = false;
  bool done_ = true;
  std::string problem_;
  ContextTable contexts_;
};

// Leaves elements uninitialised on resize: decoding writes every field of every event it keeps.
template <typename T>
struct DefaultInitAllocator : std::allocator<T> {
  template <typename U>
  struct rebind {  // NOLINT(readability-identifier-naming): the allocator protocol's name
    using other = DefaultInitAllocator<U>;
  };
  using std::allocator<T>::allocator;
  template <typename U>
  void construct(U* p) noexcept {
    ::new (static_cast<void*>(p)) U;
  }
  template <typename U, typename... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }
};
using EventVector = std::vector<Event, DefaultInitAllocator<Event>>;

struct ChunkIndex {
  EventVector events;           // in file order; by timestamp (stable) after sortEvents()
  std::vector<Record> untimed;  // definitions, metadata and bookkeeping, in file order
  bool has_trailer = false;     // the trailer is kept apart: it is delivered last
  Trailer trailer;
  uint32_t trace_records = 0;  // as the writer counts them: memory contexts are not records
  bool sorted = true;          // events are already in timestamp order
  ContextTable contexts;
};

// Decodes a verified chunk whole: every event into index.events, every untimed record into
// index.untimed, the header's counts and timestamps checked. Returns "" or the problem (the chunk
// is then unusable as a whole).
std::string indexChunk(const ChunkHeader& header, std::span<const uint8_t> body, ChunkIndex& index);

// Sorts index.events by timestamp, stably: a radix sort of (timestamp offset from the chunk's
// smallest, position) keys, then one gather. scratch is reused memory.
struct SortScratch {
  struct Key {
    uint64_t timestamp;
    uint32_t position;
  };
  std::vector<Key> keys, keys2;
  EventVector events;
};
void sortEvents(ChunkIndex& index, SortScratch& scratch);

}  // namespace memfloor::trace::detail
