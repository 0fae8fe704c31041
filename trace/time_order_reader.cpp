// TimeOrderReader: timed records in timestamp order (stable), memory bounded by out-of-orderness.
//
// Pass 1 reads every chunk header (lengths checked, not yet checksums) and notes its smallest
// timestamp; suffix_min[i] is the smallest timestamp in chunks i.. . Pass 2 loads chunks in file
// order, verifies and decodes each one whole: its untimed records are delivered at once (the
// trailer at the very end), its events are sorted (stable) by timestamp into a run. The runs are
// merged in (timestamp, chunk) order, so that equal timestamps keep file order, a block of event
// pointers at a time; an event joins a block only once its timestamp is <= suffix_min[c] for the
// next chunk c to load: no unloaded event is earlier, and on a tie the loaded one is earlier in
// the file. Events are not copied between decoding and delivery. A header that lies (a chunk that
// then fails to verify) only makes the bound too small: loading stops at that chunk and
// everything loaded is delivered.
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <utility>
#include <vector>

#include "trace/chunk_decoder.h"
#include "trace/chunk_loader.h"
#include "trace/file_header.h"
#include "trace/reader.h"

namespace memfloor::trace {
namespace {

using detail::TimedRecord;

// The sorted events of one loaded chunk, not yet merged from `position` on.
struct Run {
  detail::EventVector events;
  size_t position = 0;
  bool done() const { return position == events.size(); }
};

// Events merged per block: enough to amortize the merge's set-up, small enough to stay in cache.
constexpr size_t kBlockEvents = 256;

}  // namespace

struct TimeOrderReader::Impl {
  explicit Impl(const Source& s) : source(s), header(readFileHeader(s)), loader(s) {}

  void indexFile();
  void loadNextChunk();
  void addRun();
  void fillBlock();  // merges the next events below the bound into `block`
  void append(const TimedRecord* event) { block[block_size++] = event; }
  void setEnd(Ending ending, uint64_t offset, std::string detail) {
    end.ending = ending;
    end.offset = offset;
    end.detail = std::move(detail);
  }
  void updateBound() { bound = loading_done ? UINT64_MAX : suffix_min[next_chunk]; }

  const Source& source;
  FileHeader header;
  ChunkLoader loader;
  bool indexed = false;
  std::vector<uint64_t> offsets;     // chunks whose header is sound (pass 1)
  std::vector<uint64_t> suffix_min;  // suffix_min[i]: smallest timestamp in chunks i..; [n] = max
  TraceEnd pass1_end;                // how pass 1 stopped
  size_t next_chunk = 0;
  bool loading_done = false;

  ChunkBuffer bytes;         // the chunk being decoded
  detail::ChunkIndex index;  // its records
  detail::SortScratch sort_scratch;
  size_t untimed_position = 0;  // in index.untimed: the last loaded chunk's untimed records
  bool has_trailer = false;
  Trailer trailer;

  std::vector<Run> runs;   // loaded runs, in chunk order
  std::vector<Run> spare;  // merged runs, their memory reused
  uint64_t bound = 0;      // events up to this timestamp may be merged: no unloaded one is earlier
  std::array<const TimedRecord*, kBlockEvents> block;  // merged events, pointing into runs
  size_t block_size = 0;
  size_t block_position = 0;
  bool finished = false;
  TraceEnd end;
};

void TimeOrderReader::Impl::indexFile() {
  indexed = true;
  uint64_t offset = kFileHeaderSize;
  std::vector<uint64_t> min_timestamps;
  for (;;) {
    ChunkHeader chunk;
    const ChunkLoader::Status status = loader.loadHeader(offset, chunk);
    if (status == ChunkLoader::Status::kOk) {
      offsets.push_back(offset);
      min_timestamps.push_back(chunk.min_timestamp);
      offset += kChunkHeaderSize + uint64_t{chunk.body_length};
      continue;
    }
    pass1_end.offset = offset;
    if (status == ChunkLoader::Status::kEndOfFile) {
      pass1_end.ending = Ending::kTruncated;
      pass1_end.detail = "no trailer after the last complete chunk";
    } else {
      pass1_end.ending =
          status == ChunkLoader::Status::kCorrupt ? Ending::kCorrupt : Ending::kTruncated;
      pass1_end.detail = loader.detail();
    }
    break;
  }
  suffix_min.assign(offsets.size() + 1, UINT64_MAX);
  for (size_t i = offsets.size(); i-- > 0;) {
    suffix_min[i] = std::min(min_timestamps[i], suffix_min[i + 1]);
  }
  loading_done = offsets.empty();
  if (loading_done) setEnd(pass1_end.ending, pass1_end.offset, pass1_end.detail);
  updateBound();
}

void TimeOrderReader::Impl::loadNextChunk() {
  const size_t chunk = next_chunk++;
  const uint64_t offset = offsets[chunk];
  const ChunkLoader::Status status = loader.load(offset, bytes);
  std::string problem;
  if (status == ChunkLoader::Status::kOk) {
    problem = detail::indexChunk(bytes.header(), bytes.body(), index);
  } else {
    problem =
        status == ChunkLoader::Status::kEndOfFile ? "file shrank while reading" : loader.detail();
  }
  untimed_position = 0;
  if (!problem.empty()) {
    index.untimed.clear();
    const bool truncated =
        status == ChunkLoader::Status::kTruncated || status == ChunkLoader::Status::kEndOfFile;
    setEnd(truncated ? Ending::kTruncated : Ending::kCorrupt, offset, std::move(problem));
    loading_done = true;
    updateBound();
    return;
  }
  ++end.chunks;
  detail::sortEvents(index, sort_scratch);
  if (!index.events.empty()) addRun();
  if (index.has_trailer) {
    has_trailer = true;
    trailer = index.trailer;
    loading_done = true;
    const uint64_t after = offset + bytes.sizeOnDisk();
    if (after < source.size()) {
      setEnd(Ending::kCorrupt, after,
             fmt::format("{} bytes after the trailer chunk", source.size() - after));
    } else {
      setEnd(Ending::kTrailer, after, "");
    }
  } else if (next_chunk == offsets.size()) {
    loading_done = true;
    setEnd(pass1_end.ending, pass1_end.offset, pass1_end.detail);
  }
  updateBound();
}

// Moves merged runs to the spares, then makes the loaded chunk's events a run. Called only when
// the block is delivered: no pointer into a run is left.
void TimeOrderReader::Impl::addRun() {
  size_t kept = 0;
  for (size_t i = 0; i < runs.size(); ++i) {
    if (runs[i].done()) {
      spare.push_back(std::move(runs[i]));
      continue;
    }
    if (kept != i) runs[kept] = std::move(runs[i]);
    ++kept;
  }
  runs.resize(kept);
  Run run;
  if (!spare.empty()) {
    run = std::move(spare.back());
    spare.pop_back();
  }
  run.position = 0;
  run.events.swap(index.events);  // the index keeps the spare's memory for the next chunk
  runs.push_back(std::move(run));
}

// A k-way merge of the runs' heads, up to kBlockEvents events at or below the bound. On equal
// timestamps the run of the earlier chunk wins (runs are in chunk order, and a later run must be
// strictly earlier to be taken). Exactly two runs, the common case of interleaved writers, take
// the branch-free path; a single run is the general path's one scan.
void TimeOrderReader::Impl::fillBlock() {
  block_size = 0;
  block_position = 0;
  Run* active[2];
  size_t count = 0;
  for (Run& run : runs) {
    if (run.done()) continue;
    if (count == 2) {
      count = 3;
      break;
    }
    active[count++] = &run;
  }
  if (count == 0) return;
  if (count == 2) {
    Run& a = *active[0];
    Run& b = *active[1];
    while (block_size < kBlockEvents && !a.done() && !b.done()) {
      const TimedRecord* x = &a.events[a.position];
      const TimedRecord* y = &b.events[b.position];
      const bool take_b = y->timestamp < x->timestamp;
      const TimedRecord* e = take_b ? y : x;
      if (e->timestamp > bound) return;
      append(e);
      a.position += !take_b;
      b.position += take_b;
    }
    return;  // a run ran out: the next block merges what is left
  }
  // More runs: the run with the smallest head delivers as long as it stays ahead of every other
  // run's head (on a tie, the earlier chunk's), which is many events at a time when chunks
  // overlap only at their ends.
  while (block_size < kBlockEvents) {
    Run* best = nullptr;
    size_t best_order = 0;
    uint64_t second = UINT64_MAX;  // the smallest head of the other runs
    size_t second_order = SIZE_MAX;
    for (size_t i = 0; i < runs.size(); ++i) {
      Run& run = runs[i];
      if (run.done()) continue;
      const uint64_t head = run.events[run.position].timestamp;
      if (best == nullptr || head < best->events[best->position].timestamp) {
        if (best != nullptr) {
          second = best->events[best->position].timestamp;
          second_order = best_order;
        }
        best = &run;
        best_order = i;
      } else if (head < second) {
        second = head;
        second_order = i;
      }
    }
    if (best == nullptr) return;
    // best's head < second, or equal with best first: best may take events up to `limit`.
    uint64_t limit = best_order < second_order ? second : second - 1;
    limit = std::min(limit, bound);
    if (best->events[best->position].timestamp > limit) return;
    do {
      append(&best->events[best->position++]);
    } while (block_size < kBlockEvents && !best->done() &&
             best->events[best->position].timestamp <= limit);
  }
}

TimeOrderReader::TimeOrderReader(const Source& source) : impl_(std::make_unique<Impl>(source)) {}
TimeOrderReader::~TimeOrderReader() = default;

bool TimeOrderReader::next(Record& out) {
  Impl& s = *impl_;
  if (!s.indexed) s.indexFile();
  for (;;) {
    if (s.untimed_position < s.index.untimed.size()) [[unlikely]] {
      out = std::move(s.index.untimed[s.untimed_position++]);
      break;
    }
    if (s.block_position < s.block_size) [[likely]] {
      detail::toRecord(*s.block[s.block_position++], out);
      break;
    }
    s.fillBlock();
    if (s.block_size > 0) continue;
    if (!s.loading_done) {
      s.loadNextChunk();
      continue;
    }
    if (s.has_trailer && !s.finished) {
      out = s.trailer;
      s.finished = true;
      break;
    }
    s.finished = true;
    s.runs.clear();
    s.spare.clear();
    return false;
  }
  ++s.end.records;
  return true;
}

const TraceEnd& TimeOrderReader::end() const { return impl_->end; }
uint16_t TimeOrderReader::major() const { return impl_->header.major; }
uint16_t TimeOrderReader::minor() const { return impl_->header.minor; }

}  // namespace memfloor::trace
