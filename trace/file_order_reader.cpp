// FileOrderReader: records exactly as written, one verified chunk at a time.
#include <fmt/format.h>

#include <type_traits>
#include <utility>
#include <vector>

#include "trace/chunk_decoder.h"
#include "trace/chunk_loader.h"
#include "trace/file_header.h"
#include "trace/reader.h"

namespace memfloor::trace {

struct FileOrderReader::Impl {
  explicit Impl(const Source& s) : source(s), header(readFileHeader(s)), loader(s) {}

  bool loadChunk();  // false once reading has ended (end is then set)
  void stop(Ending ending, std::string detail) {
    end.ending = ending;
    end.offset = offset;
    end.detail = std::move(detail);
    done = true;
  }

  const Source& source;
  FileHeader header;
  ChunkLoader loader;
  uint64_t offset = kFileHeaderSize;
  std::vector<Record> records;  // the current chunk's, reused
  size_t position = 0;
  bool done = false;
  bool after_trailer = false;
  TraceEnd end;
};

bool FileOrderReader::Impl::loadChunk() {
  records.clear();
  position = 0;
  if (done) return false;
  if (after_trailer) {
    const uint64_t size = source.size();
    if (offset < size) {
      stop(Ending::kCorrupt, fmt::format("{} bytes after the trailer chunk", size - offset));
    } else {
      stop(Ending::kTrailer, "");
    }
    return false;
  }
  switch (loader.load(offset)) {
    case ChunkLoader::Status::kOk: break;
    case ChunkLoader::Status::kEndOfFile:
      stop(Ending::kTruncated, "no trailer after the last complete chunk");
      return false;
    case ChunkLoader::Status::kTruncated: stop(Ending::kTruncated, loader.detail()); return false;
    case ChunkLoader::Status::kCorrupt: stop(Ending::kCorrupt, loader.detail()); return false;
  }
  bool trailer = false;
  std::string problem = detail::decodeChunk(loader.header(), loader.body(), [&](auto&& record) {
    trailer = std::is_same_v<std::decay_t<decltype(record)>, Trailer>;
    records.emplace_back(std::move(record));
  });
  if (!problem.empty()) {
    records.clear();
    stop(Ending::kCorrupt, std::move(problem));
    return false;
  }
  after_trailer = trailer;  // the decoder made sure nothing follows it in the chunk
  ++end.chunks;
  offset += loader.sizeOnDisk();
  return true;
}

FileOrderReader::FileOrderReader(const Source& source) : impl_(std::make_unique<Impl>(source)) {}
FileOrderReader::~FileOrderReader() = default;

bool FileOrderReader::next(Record& out) {
  Impl& s = *impl_;
  while (s.position == s.records.size()) {
    if (!s.loadChunk()) return false;
  }
  out = std::move(s.records[s.position++]);
  ++s.end.records;
  return true;
}

const TraceEnd& FileOrderReader::end() const { return impl_->end; }
uint16_t FileOrderReader::major() const { return impl_->header.major; }
uint16_t FileOrderReader::minor() const { return impl_->header.minor; }

}  // namespace memfloor::trace
