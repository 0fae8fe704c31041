// TimeOrderReader: timed records in timestamp order (stable), memory bounded by out-of-orderness.
//
// Pass 1 verifies every chunk's checksum and indexes the complete ones with their smallest
// timestamp; suffix_min[i] is the smallest timestamp in chunks i.. . Pass 2 loads chunks in file
// order and decodes each one whole: its untimed records are delivered at once (the trailer at the
// very end), its events are sorted (stable) by timestamp and merged into `pending`, the events of
// earlier chunks still waiting, which are sorted too. A merge is stable with the waiting events
// first, so equal timestamps keep (chunk, position) order. An event is released once its
// timestamp is <= suffix_min[next chunk to load]: no unloaded event is earlier, and on a tie the
// loaded one comes first in the file. Chunks that do not overlap are appended without a merge; a
// chunk's bytes are not kept once it is decoded.
#include <fmt/format.h>

#include <algorithm>
#include <utility>
#include <vector>

#include "trace/chunk_decoder.h"
#include "trace/chunk_loader.h"
#include "trace/file_header.h"
#include "trace/reader.h"

namespace memfloor::trace {

struct TimeOrderReader::Impl {
  explicit Impl(const Source& s) : source(s), header(readFileHeader(s)), loader(s) {}

  void indexFile();
  void loadNextChunk();
  void mergeEvents();  // index.events (sorted) into pending
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

  ChunkBuffer bytes;         // the chunk being decoded
  detail::ChunkIndex index;  // its records
  detail::SortScratch sort_scratch;
  size_t untimed_position = 0;  // in index.untimed: the last loaded chunk's untimed records
  bool has_trailer = false;
  Trailer trailer;

  std::vector<detail::TimedRecord> pending;  // waiting events, sorted; [0, position) delivered
  size_t position = 0;
  uint64_t bound = 0;  // events up to this timestamp may be delivered
  std::vector<detail::TimedRecord> merge_scratch;
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

void TimeOrderReader::Impl::loadNextChunk() {
  const size_t chunk = next_chunk++;
  const uint64_t offset = offsets[chunk];
  const ChunkLoader::Status status = loader.load(offset, bytes);  // again: files change
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
    bound = UINT64_MAX;
    return;
  }
  ++end.chunks;
  detail::sortEvents(index, sort_scratch);
  mergeEvents();
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
  bound = loading_done ? UINT64_MAX : suffix_min[next_chunk];
}

void TimeOrderReader::Impl::mergeEvents() {
  std::vector<detail::TimedRecord>& events = index.events;
  if (events.empty()) return;
  if (position == pending.size()) {  // nothing waiting: the chunk's events are the queue
    pending.swap(events);
    position = 0;
    return;
  }
  const auto earlier = [](const detail::TimedRecord& a, const detail::TimedRecord& b) {
    return a.timestamp < b.timestamp;
  };
  const auto first = pending.begin() + static_cast<ptrdiff_t>(position);
  if (!earlier(events.front(), pending.back())) {  // no overlap: append
    if (position > 0) pending.erase(pending.begin(), first);
    position = 0;
    pending.insert(pending.end(), events.begin(), events.end());
    return;
  }
  // Waiting events up to the new chunk's first timestamp are copied as they are (on a tie the
  // waiting one is earlier in the file); the rest is merged with the chunk's, waiting ones first.
  // One pass into the other buffer drops what was delivered too.
  const auto split = std::upper_bound(first, pending.end(), events.front(), earlier);
  merge_scratch.resize(static_cast<size_t>(pending.end() - first) + events.size());
  const auto out = std::copy(first, split, merge_scratch.begin());
  std::merge(split, pending.end(), events.begin(), events.end(), out, earlier);
  pending.swap(merge_scratch);
  position = 0;
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
    if (s.position < s.pending.size() && s.pending[s.position].timestamp <= s.bound) [[likely]] {
      detail::toRecord(s.pending[s.position++], out);
      break;
    }
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
    s.pending.clear();
    s.position = 0;
    return false;
  }
  ++s.end.records;
  return true;
}

const TraceEnd& TimeOrderReader::end() const { return impl_->end; }
uint16_t TimeOrderReader::major() const { return impl_->header.major; }
uint16_t TimeOrderReader::minor() const { return impl_->header.minor; }

}  // namespace memfloor::trace
