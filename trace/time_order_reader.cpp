// TimeOrderReader: timed records in timestamp order (stable), memory bounded by out-of-orderness.
//
// Pass 1 verifies every chunk's checksum and indexes the complete ones with their smallest
// timestamp; suffix_min[i] is the smallest timestamp in chunks i.. . Pass 2 loads chunks in file
// order; each chunk's timed records become a run sorted by (timestamp, position). A record can be
// released once its timestamp is <= suffix_min[next chunk to load]: no unloaded record is earlier,
// and on a tie the loaded record comes first in the file. Runs are merged through a min-heap keyed
// by (head timestamp, chunk index); the run holding the minimum is kept outside the heap (current_)
// so that chunks that do not overlap stream without heap work.
#include <fmt/format.h>

#include <algorithm>
#include <type_traits>
#include <utility>
#include <vector>

#include "trace/chunk_decoder.h"
#include "trace/chunk_loader.h"
#include "trace/file_header.h"
#include "trace/reader.h"

namespace memfloor::trace {

namespace {

struct Run {
  std::vector<Record> records;
  std::vector<uint64_t> timestamps;
  size_t position = 0;
  uint64_t chunk = 0;  // tie-breaker: earlier chunks first
  uint64_t head() const { return timestamps[position]; }
  bool exhausted() const { return position == records.size(); }
};

}  // namespace

struct TimeOrderReader::Impl {
  explicit Impl(const Source& s) : source(s), header(readFileHeader(s)), loader(s) {}

  void index();
  void loadNextChunk();
  bool nextTimed(Record& out);
  size_t newRun();
  void sortRun(Run& run);
  bool runAfter(size_t a, size_t b) const {  // heap order: true when a comes after b
    const Run& x = runs[a];
    const Run& y = runs[b];
    return x.head() != y.head() ? x.head() > y.head() : x.chunk > y.chunk;
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

  std::vector<Run> runs;        // pool; free_runs lists the ones not in use
  std::vector<size_t> free_runs;
  std::vector<size_t> heap;     // runs waiting, min-heap by runAfter
  size_t current = SIZE_MAX;    // the run with the smallest head, outside the heap
  std::vector<std::pair<uint64_t, uint32_t>> sort_keys;  // scratch for sortRun
  std::vector<Record> sort_scratch;
  bool finished = false;
  TraceEnd end;
};

void TimeOrderReader::Impl::index() {
  indexed = true;
  uint64_t offset = kFileHeaderSize;
  std::vector<uint64_t> min_timestamps;
  for (;;) {
    const ChunkLoader::Status status = loader.load(offset);
    if (status == ChunkLoader::Status::kOk) {
      offsets.push_back(offset);
      min_timestamps.push_back(loader.header().min_timestamp);
      offset += loader.sizeOnDisk();
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

void TimeOrderReader::Impl::sortRun(Run& run) {
  if (std::is_sorted(run.timestamps.begin(), run.timestamps.end())) return;
  const size_t n = run.records.size();
  sort_keys.clear();
  for (size_t i = 0; i < n; ++i) sort_keys.emplace_back(run.timestamps[i], static_cast<uint32_t>(i));
  std::sort(sort_keys.begin(), sort_keys.end());  // keys are unique: the order is stable
  sort_scratch.clear();
  for (size_t i = 0; i < n; ++i) {
    run.timestamps[i] = sort_keys[i].first;
    sort_scratch.push_back(std::move(run.records[sort_keys[i].second]));
  }
  run.records.swap(sort_scratch);
}

void TimeOrderReader::Impl::loadNextChunk() {
  const size_t chunk = next_chunk++;
  const uint64_t offset = offsets[chunk];
  untimed.clear();
  untimed_position = 0;
  const ChunkLoader::Status status = loader.load(offset);  // verified again: the file may change
  if (status != ChunkLoader::Status::kOk) {
    const bool corrupt = status == ChunkLoader::Status::kCorrupt;
    setEnd(corrupt ? Ending::kCorrupt : Ending::kTruncated, offset,
           status == ChunkLoader::Status::kEndOfFile ? "file shrank while reading"
                                                     : loader.detail());
    loading_done = true;
    return;
  }
  const size_t run_index = newRun();
  Run& run = runs[run_index];
  run.records.clear();
  run.timestamps.clear();
  run.position = 0;
  run.chunk = chunk;
  bool trailer_seen = false;
  std::string problem = detail::decodeChunk(loader.header(), loader.body(), [&](auto&& record) {
    using T = std::decay_t<decltype(record)>;
    if constexpr (std::is_same_v<T, Alloc> || std::is_same_v<T, Free> ||
                  std::is_same_v<T, PoolEvent> || std::is_same_v<T, Marker>) {
      run.timestamps.push_back(record.timestamp);
      run.records.emplace_back(std::move(record));
    } else if constexpr (std::is_same_v<T, Trailer>) {
      trailer = record;  // delivered after every timed record
      trailer_seen = true;
    } else {
      untimed.emplace_back(std::move(record));
    }
  });
  if (!problem.empty()) {
    untimed.clear();
    free_runs.push_back(run_index);
    setEnd(Ending::kCorrupt, offset, std::move(problem));
    loading_done = true;
    return;
  }
  ++end.chunks;
  if (run.records.empty()) {
    free_runs.push_back(run_index);
  } else {
    sortRun(run);
    if (current != SIZE_MAX) {  // the new run may hold the minimum: let the heap decide
      heap.push_back(current);
      std::push_heap(heap.begin(), heap.end(), [this](size_t a, size_t b) { return runAfter(a, b); });
      current = SIZE_MAX;
    }
    heap.push_back(run_index);
    std::push_heap(heap.begin(), heap.end(), [this](size_t a, size_t b) { return runAfter(a, b); });
  }
  if (trailer_seen) {
    has_trailer = true;
    loading_done = true;
    const uint64_t after = offset + loader.sizeOnDisk();
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

bool TimeOrderReader::Impl::nextTimed(Record& out) {
  const auto after = [this](size_t a, size_t b) { return runAfter(a, b); };
  if (current == SIZE_MAX) {
    if (heap.empty()) return false;
    std::pop_heap(heap.begin(), heap.end(), after);
    current = heap.back();
    heap.pop_back();
  }
  Run& run = runs[current];
  const uint64_t bound = loading_done ? UINT64_MAX : suffix_min[next_chunk];
  if (run.head() > bound) return false;
  out = std::move(run.records[run.position++]);
  if (run.exhausted()) {
    free_runs.push_back(current);
    current = SIZE_MAX;
  } else if (!heap.empty() && runAfter(current, heap.front())) {
    heap.push_back(current);
    std::push_heap(heap.begin(), heap.end(), after);
    current = SIZE_MAX;
  }
  return true;
}

TimeOrderReader::TimeOrderReader(const Source& source) : impl_(std::make_unique<Impl>(source)) {}
TimeOrderReader::~TimeOrderReader() = default;

bool TimeOrderReader::next(Record& out) {
  Impl& s = *impl_;
  if (!s.indexed) s.index();
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
