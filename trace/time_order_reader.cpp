// TimeOrderReader: timed records in timestamp order (stable), memory bounded by out-of-orderness.
//
// Pass 1 reads every chunk header (lengths checked, not yet checksums) and notes its smallest
// timestamp; suffix_min[i] is the smallest timestamp in chunks i.. . Pass 2 loads chunks in file
// order, verifies and decodes each one whole: its untimed records are delivered at once (the
// trailer at the very end), its events are sorted (stable) by timestamp into a segment, which is
// chained to a run whose last event precedes it or starts one. The runs are merged in (timestamp,
// chunk) order, so that equal timestamps keep file order, a block of event pointers at a time
// (TimeOrderReader::nextBatch); an event joins a block only once its timestamp is <= suffix_min[c]
// for the next chunk c to load: no unloaded event is earlier, and on a tie the loaded one is
// earlier in the file. Events are not copied between decoding and delivery. A header that lies (a
// chunk that then fails to verify) only makes the bound too small: loading stops at that chunk and
// everything loaded is delivered.
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <deque>
#include <utility>
#include <vector>

#include "trace/chunk_decoder.h"
#include "trace/chunk_loader.h"
#include "trace/file_header.h"
#include "trace/reader.h"

namespace memfloor::trace {
namespace {

// The sorted events of one loaded chunk.
struct Segment {
  detail::EventVector events;
  size_t chunk = 0;  // file order: decides between equal timestamps
};

// Segments in (timestamp, chunk) order, merged from segments.front().events[position] on. A chunk
// whose events all come at or after the last event of a run is chained to that run instead of
// starting one, so that a file written by a few interleaved writers merges as a few runs however
// far its chunks reach back.
struct Run {
  Run() = default;
  // Moved, never copied, when `runs` grows: std::deque's move constructor may allocate and is not
  // noexcept, so without these the vector would copy every waiting segment's events instead.
  Run(Run&&) noexcept = default;
  Run& operator=(Run&&) noexcept = default;

  std::deque<Segment> segments;  // never empty while the run is kept
  size_t position = 0;
  const Event& head() const { return segments.front().events[position]; }
  size_t headChunk() const { return segments.front().chunk; }
  bool segmentDone() const { return position == segments.front().events.size(); }
  uint64_t lastTimestamp() const { return segments.back().events.back().timestamp; }
};

// Events merged per block: enough to amortize the merge's set-up, small enough to stay in cache.
constexpr size_t kBlockEvents = 256;

}  // namespace

struct TimeOrderReader::Impl {
  explicit Impl(const Source& s) : source(s), header(readFileHeader(s)), loader(s) {}

  bool nextBatch(Batch& out);
  void indexFile();
  void loadNextChunk();
  void addSegment();
  void dropMerged();
  void fillBlock();  // merges the next events below the bound into `block`
  void append(const Event* event) { block[block_size++] = event; }
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
  std::vector<uint64_t> offsets;       // chunks whose header is sound (pass 1)
  std::vector<uint32_t> body_lengths;  // theirs, as pass 1 read them
  std::vector<uint64_t> suffix_min;    // suffix_min[i]: smallest timestamp in chunks i..; [n] = max
  TraceEnd pass1_end;                  // how pass 1 stopped
  size_t next_chunk = 0;
  bool loading_done = false;

  ChunkBuffer bytes;         // the chunk being decoded
  detail::ChunkIndex index;  // its records
  detail::SortScratch sort_scratch;
  size_t untimed_position = 0;  // in index.untimed: the last loaded chunk's untimed records
  bool has_trailer = false;
  Record trailer;
  uint64_t trace_records = 0;  // of the chunks loaded, as the writer counts them

  std::vector<Run> runs;                   // loaded events not yet merged
  std::vector<detail::EventVector> spare;  // merged segments' memory, reused
  uint64_t bound = 0;  // events up to this timestamp may be merged: no unloaded one is earlier
  std::array<const Event*, kBlockEvents> block;  // merged events, pointing into runs
  size_t block_size = 0;
  bool finished = false;
  TraceEnd end;

  Batch batch;  // next()'s: the batch it delivers from
  size_t batch_position = 0;
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
      body_lengths.push_back(chunk.body_length);
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
  const ChunkLoader::Status status = loader.load(offset, bytes, body_lengths[chunk]);
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
  trace_records += index.trace_records;
  detail::sortEvents(index, sort_scratch);
  if (!index.events.empty()) addSegment();
  if (index.has_trailer) {
    has_trailer = true;
    trailer = index.trailer;
    loading_done = true;
    endAtTrailer(end, source, offset, offset + bytes.sizeOnDisk(), index.trailer.record_count,
                 trace_records - 1);
  } else if (next_chunk == offsets.size()) {
    loading_done = true;
    setEnd(pass1_end.ending, pass1_end.offset, pass1_end.detail);
  }
  updateBound();
}

// Moves merged segments to the spares and drops emptied runs. Called only when the block is
// delivered: no pointer into a segment is left.
void TimeOrderReader::Impl::dropMerged() {
  size_t kept = 0;
  for (size_t i = 0; i < runs.size(); ++i) {
    Run& run = runs[i];
    while (!run.segments.empty() && run.segmentDone()) {
      spare.push_back(std::move(run.segments.front().events));
      run.segments.pop_front();
      run.position = 0;
    }
    if (run.segments.empty()) continue;
    if (kept != i) runs[kept] = std::move(run);
    ++kept;
  }
  runs.resize(kept);
}

// Makes the loaded chunk's events a segment: chained to the run whose last event is the latest
// one not after the segment's first, else a run of its own.
void TimeOrderReader::Impl::addSegment() {
  dropMerged();
  Segment segment;
  segment.chunk = next_chunk - 1;
  if (!spare.empty()) {
    segment.events.swap(spare.back());
    spare.pop_back();
  }
  segment.events.swap(index.events);  // the index keeps the spare's memory for the next chunk
  const uint64_t first = segment.events.front().timestamp;
  Run* chain = nullptr;
  for (Run& run : runs) {
    const uint64_t last = run.lastTimestamp();
    if (last <= first && (chain == nullptr || last > chain->lastTimestamp())) chain = &run;
  }
  if (chain == nullptr) chain = &runs.emplace_back();
  chain->segments.push_back(std::move(segment));
}

// A k-way merge of the runs' head segments, up to kBlockEvents events at or below the bound, in
// (timestamp, chunk) order. It stops where a head segment runs out; the next block starts on the
// segment after it. Two runs, the common case of interleaved writers, take the branch-free path.
void TimeOrderReader::Impl::fillBlock() {
  block_size = 0;
  dropMerged();
  if (runs.size() == 2) {
    // a is the run whose head segment comes first in the file: it wins equal timestamps.
    const bool swap = runs[1].headChunk() < runs[0].headChunk();
    Run& a = runs[swap ? 1 : 0];
    Run& b = runs[swap ? 0 : 1];
    const Event* x = &a.segments.front().events[a.position];
    const Event* const x_end = x + (a.segments.front().events.size() - a.position);
    const Event* y = &b.segments.front().events[b.position];
    const Event* const y_end = y + (b.segments.front().events.size() - b.position);
    // n steps take n events, at most n from either run: neither runs out, and when both runs'
    // n-th events are at or below the bound, so is every event taken. Locals, not members: the
    // pointer stores below must not make the compiler reload them.
    const Event** const out = block.data();
    size_t taken = 0;
    for (;;) {
      const auto n = static_cast<size_t>(std::min<ptrdiff_t>(
          {static_cast<ptrdiff_t>(kBlockEvents - taken), x_end - x, y_end - y}));
      if (n == 0) break;
      if (x[n - 1].timestamp <= bound && y[n - 1].timestamp <= bound) {
        if (x[n - 1].timestamp <= y->timestamp) {  // a's next n come first (a wins ties)
          for (size_t i = 0; i < n; ++i) out[taken + i] = x + i;
          x += n;
        } else if (y[n - 1].timestamp < x->timestamp) {  // b's next n come first
          for (size_t i = 0; i < n; ++i) out[taken + i] = y + i;
          y += n;
        } else {
          for (size_t i = 0; i < n; ++i) {
            const bool take_b = y->timestamp < x->timestamp;
            out[taken + i] = take_b ? y : x;
            x = take_b ? x : x + 1;
            y = take_b ? y + 1 : y;
          }
        }
        taken += n;
        continue;
      }
      size_t i = 0;
      for (; i < n; ++i) {
        const bool take_b = y->timestamp < x->timestamp;
        const Event* e = take_b ? y : x;
        if (e->timestamp > bound) break;
        out[taken + i] = e;
        x = take_b ? x : x + 1;
        y = take_b ? y + 1 : y;
      }
      taken += i;
      if (i < n) break;
    }
    block_size = taken;
    a.position = static_cast<size_t>(x - a.segments.front().events.data());
    b.position = static_cast<size_t>(y - b.segments.front().events.data());
    return;
  }
  // Other counts: the run with the smallest head delivers as long as it stays ahead of every
  // other run's head, which is many events at a time when chunks overlap only at their ends.
  while (block_size < kBlockEvents) {
    Run* best = nullptr;
    uint64_t second = UINT64_MAX;  // the smallest head of the other runs
    size_t second_chunk = SIZE_MAX;
    for (Run& run : runs) {
      if (run.segmentDone()) return;
      const uint64_t head = run.head().timestamp;
      if (best == nullptr || head < best->head().timestamp ||
          (head == best->head().timestamp && run.headChunk() < best->headChunk())) {
        if (best != nullptr) {
          second = best->head().timestamp;
          second_chunk = best->headChunk();
        }
        best = &run;
      } else if (head < second || (head == second && run.headChunk() < second_chunk)) {
        second = head;
        second_chunk = run.headChunk();
      }
    }
    if (best == nullptr) return;
    // best's head < second, or equal with best's chunk first: best may take events up to `limit`.
    uint64_t limit = best->headChunk() < second_chunk ? second : second - 1;
    limit = std::min(limit, bound);
    if (best->head().timestamp > limit) return;
    do {
      append(&best->head());
      ++best->position;
    } while (block_size < kBlockEvents && !best->segmentDone() && best->head().timestamp <= limit);
  }
}

bool TimeOrderReader::Impl::nextBatch(Batch& out) {
  if (!indexed) indexFile();
  for (;;) {
    if (untimed_position < index.untimed.size()) [[unlikely]] {
      out = {std::span(index.untimed).subspan(untimed_position), {}};
      untimed_position = index.untimed.size();
      break;
    }
    fillBlock();
    if (block_size > 0) [[likely]] {
      out = {{}, std::span(block.data(), block_size)};
      break;
    }
    if (!loading_done) {
      loadNextChunk();
      continue;
    }
    if (has_trailer && !finished) {
      out = {std::span(&trailer, 1), {}};
      finished = true;
      break;
    }
    finished = true;
    runs.clear();
    spare.clear();
    return false;
  }
  end.records += out.records.size() + out.events.size();
  return true;
}

TimeOrderReader::TimeOrderReader(const Source& source) : impl_(std::make_unique<Impl>(source)) {}
TimeOrderReader::~TimeOrderReader() = default;

bool TimeOrderReader::nextBatch(Batch& out) { return impl_->nextBatch(out); }

bool TimeOrderReader::next(Record& out) {
  Impl& s = *impl_;
  Batch& batch = s.batch;
  if (s.batch_position == batch.records.size() + batch.events.size()) {
    if (!s.nextBatch(batch)) return false;
    s.batch_position = 0;
  }
  if (!batch.records.empty()) {
    out = std::move(batch.records[s.batch_position++]);
  } else {
    toRecord(*batch.events[s.batch_position++], out);
  }
  return true;
}

const TraceEnd& TimeOrderReader::end() const { return impl_->end; }
uint16_t TimeOrderReader::major() const { return impl_->header.major; }
uint16_t TimeOrderReader::minor() const { return impl_->header.minor; }

}  // namespace memfloor::trace
