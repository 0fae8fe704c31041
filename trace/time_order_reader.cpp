// TimeOrderReader: timed records in timestamp order (stable), memory bounded by out-of-orderness.
//
// Pass 1 verifies every chunk's checksum and indexes the complete ones with their smallest
// timestamp; suffix_min[i] is the smallest timestamp in chunks i.. . Pass 2 loads chunks in file
// order. A loaded chunk keeps its bytes and becomes a run: the (timestamp, offset) keys of its
// events, sorted; its untimed records are delivered at once (the trailer at the very end). A key
// is released once its timestamp is <= suffix_min[next chunk to load]: no unloaded event is
// earlier, and on a tie the loaded one comes first in the file. Runs are merged through a min-heap
// keyed by (head timestamp, chunk index); the run holding the minimum is kept outside the heap
// (current) so that chunks that do not overlap stream without heap work. An event is decoded only
// when it is delivered, straight into the caller's record.
#include <fmt/format.h>

#include <algorithm>
#include <utility>
#include <vector>

#include "trace/chunk_decoder.h"
#include "trace/chunk_loader.h"
#include "trace/file_header.h"
#include "trace/reader.h"

namespace memfloor::trace {

namespace {

struct Run {
  ChunkBuffer bytes;
  detail::ChunkIndex index;
  size_t position = 0;
  size_t chunk = 0;  // tie-breaker: earlier chunks first
  const detail::EventKey& head() const { return index.events[position]; }
  bool exhausted() const { return position == index.events.size(); }
};

}  // namespace

struct TimeOrderReader::Impl {
  explicit Impl(const Source& s) : source(s), header(readFileHeader(s)), loader(s) {}

  void indexFile();
  void loadNextChunk();
  bool nextTimed(Record& out);
  void dropRunsFrom(size_t chunk);  // a run failed to decode: it and later chunks are dropped
  size_t newRun();
  bool runAfter(size_t a, size_t b) const {  // heap order: true when a comes after b
    const uint64_t x = runs[a].head().timestamp;
    const uint64_t y = runs[b].head().timestamp;
    return x != y ? x > y : runs[a].chunk > runs[b].chunk;
  }
  void pushRun(size_t run) {
    heap.push_back(run);
    std::push_heap(heap.begin(), heap.end(), [this](size_t a, size_t b) { return runAfter(a, b); });
  }
  void setEnd(Ending ending, uint64_t offset, std::string detail) {
    end.ending = ending;
    end.offset = offset;
    end.detail = std::move(detail);
  }

  const Source& source;
  FileHeader header;
  ChunkLoader loader;
  bool indexed = false;
  std::vector<uint64_t> offsets;     // complete, checksum-verified chunks (pass 1)
  std::vector<uint64_t> suffix_min;  // suffix_min[i]: smallest timestamp in chunks i..; [n] = max
  TraceEnd pass1_end;                // how pass 1 stopped
  size_t next_chunk = 0;
  bool loading_done = false;

  std::vector<Record> untimed;  // the last loaded chunk's definitions and metadata
  size_t untimed_position = 0;
  bool has_trailer = false;
  Trailer trailer;

  std::vector<Run> runs;  // a pool; free_runs lists those not in use
  std::vector<size_t> free_runs;
  std::vector<size_t> heap;  // runs waiting, a min-heap by runAfter
  std::vector<detail::EventKey> sort_scratch;
  size_t current = SIZE_MAX;  // the run with the smallest head, outside the heap
  bool finished = false;
  TraceEnd end;
};

void TimeOrderReader::Impl::indexFile() {
  indexed = true;
  ChunkBuffer scratch;
  uint64_t offset = kFileHeaderSize;
  std::vector<uint64_t> min_timestamps;
  for (;;) {
    const ChunkLoader::Status status = loader.load(offset, scratch);
    if (status == ChunkLoader::Status::kOk) {
      offsets.push_back(offset);
      min_timestamps.push_back(scratch.header().min_timestamp);
      offset += scratch.sizeOnDisk();
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
}

size_t TimeOrderReader::Impl::newRun() {
  if (free_runs.empty()) {
    runs.emplace_back();
    return runs.size() - 1;
  }
  const size_t run = free_runs.back();
  free_runs.pop_back();
  return run;
}

void TimeOrderReader::Impl::loadNextChunk() {
  const size_t chunk = next_chunk++;
  const uint64_t offset = offsets[chunk];
  const size_t run_index = newRun();
  Run& run = runs[run_index];
  const ChunkLoader::Status status = loader.load(offset, run.bytes);  // again: files change
  std::string problem;
  if (status == ChunkLoader::Status::kOk) {
    problem = detail::indexChunk(run.bytes.header(), run.bytes.body(), run.index);
  } else {
    problem =
        status == ChunkLoader::Status::kEndOfFile ? "file shrank while reading" : loader.detail();
  }
  if (!problem.empty()) {
    free_runs.push_back(run_index);
    const bool truncated =
        status == ChunkLoader::Status::kTruncated || status == ChunkLoader::Status::kEndOfFile;
    setEnd(truncated ? Ending::kTruncated : Ending::kCorrupt, offset, std::move(problem));
    loading_done = true;
    return;
  }
  ++end.chunks;
  untimed.swap(run.index.untimed);  // delivered now, before any later event
  untimed_position = 0;
  if (run.index.events.empty()) {
    free_runs.push_back(run_index);
  } else {
    detail::sortEvents(run.index, sort_scratch);
    run.position = 0;
    run.chunk = chunk;
    if (current != SIZE_MAX) {  // the new run may hold the minimum: let the heap decide
      pushRun(current);
      current = SIZE_MAX;
    }
    pushRun(run_index);
  }
  if (run.index.has_trailer) {
    has_trailer = true;
    trailer = run.index.trailer;
    loading_done = true;
    const uint64_t after = offset + run.bytes.sizeOnDisk();
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
}

void TimeOrderReader::Impl::dropRunsFrom(size_t chunk) {
  auto drop = [&](size_t run) {
    if (runs[run].chunk < chunk) return false;
    free_runs.push_back(run);
    return true;
  };
  if (current != SIZE_MAX && drop(current)) current = SIZE_MAX;
  std::erase_if(heap, drop);
  std::make_heap(heap.begin(), heap.end(), [this](size_t a, size_t b) { return runAfter(a, b); });
  loading_done = true;
  has_trailer = false;  // the trailer's chunk is at or after the bad one
  end.chunks = chunk;
}

bool TimeOrderReader::Impl::nextTimed(Record& out) {
  const auto after = [this](size_t a, size_t b) { return runAfter(a, b); };
  for (;;) {
    if (current == SIZE_MAX) {
      if (heap.empty()) return false;
      std::pop_heap(heap.begin(), heap.end(), after);
      current = heap.back();
      heap.pop_back();
    }
    Run& run = runs[current];
    const uint64_t bound = loading_done ? UINT64_MAX : suffix_min[next_chunk];
    const detail::EventKey& key = run.head();
    if (key.timestamp > bound) return false;
    std::string problem;
    if (!detail::decodeEvent(run.bytes.body(), key, out, problem)) [[unlikely]] {
      // a field that indexChunk() did not read
      setEnd(Ending::kCorrupt, offsets[run.chunk], std::move(problem));
      dropRunsFrom(run.chunk);
      continue;
    }
    ++run.position;
    if (run.exhausted()) {
      free_runs.push_back(current);
      current = SIZE_MAX;
    } else if (!heap.empty() && runAfter(current, heap.front())) {
      pushRun(current);
      current = SIZE_MAX;
    }
    return true;
  }
}

TimeOrderReader::TimeOrderReader(const Source& source) : impl_(std::make_unique<Impl>(source)) {}
TimeOrderReader::~TimeOrderReader() = default;

bool TimeOrderReader::next(Record& out) {
  Impl& s = *impl_;
  if (!s.indexed) s.indexFile();
  for (;;) {
    if (s.untimed_position < s.untimed.size()) {
      out = std::move(s.untimed[s.untimed_position++]);
      break;
    }
    if (s.nextTimed(out)) break;
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
    return false;
  }
  ++s.end.records;
  return true;
}

const TraceEnd& TimeOrderReader::end() const { return impl_->end; }
uint16_t TimeOrderReader::major() const { return impl_->header.major; }
uint16_t TimeOrderReader::minor() const { return impl_->header.minor; }

}  // namespace memfloor::trace
