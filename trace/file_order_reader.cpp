// FileOrderReader: records exactly as written, decoded straight from each verified chunk.

#include <utility>

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
  ChunkBuffer buffer;
  detail::ChunkDecoder decoder;
  uint64_t offset = kFileHeaderSize;  // of the current chunk
  bool in_chunk = false;
  bool after_trailer = false;
  uint64_t trailer_offset = 0;  // of the chunk holding the trailer
  uint64_t trailer_count = 0;
  uint64_t trace_records = 0;  // of the chunks read, as the writer counts them
  bool done = false;
  TraceEnd end;
};

bool FileOrderReader::Impl::loadChunk() {
  if (done) return false;
  if (after_trailer) {
    endAtTrailer(end, source, trailer_offset, offset, trailer_count, trace_records - 1);
    done = true;
    return false;
  }
  switch (loader.load(offset, buffer)) {
    case ChunkLoader::Status::kOk:
      break;
    case ChunkLoader::Status::kEndOfFile:
      stop(Ending::kTruncated, "no trailer after the last complete chunk");
      return false;
    case ChunkLoader::Status::kTruncated:
      stop(Ending::kTruncated, loader.detail());
      return false;
    case ChunkLoader::Status::kCorrupt:
      stop(Ending::kCorrupt, loader.detail());
      return false;
  }
  decoder.reset(buffer.header(), buffer.body());
  in_chunk = true;
  return true;
}

FileOrderReader::FileOrderReader(const Source& source) : impl_(std::make_unique<Impl>(source)) {}
FileOrderReader::~FileOrderReader() = default;

bool FileOrderReader::next(Record& out) {
  Impl& s = *impl_;
  for (;;) {
    if (s.in_chunk) {
      if (s.decoder.next(out)) [[likely]] {
        ++s.end.records;
        return true;
      }
      s.in_chunk = false;
      if (!s.decoder.problem().empty()) {  // the records before the problem were delivered
        s.stop(Ending::kCorrupt, s.decoder.problem());
        return false;
      }
      ++s.end.chunks;
      s.trace_records += s.decoder.traceRecords();
      s.after_trailer = s.decoder.afterTrailer();
      s.trailer_count = s.decoder.trailerCount();
      s.trailer_offset = s.offset;
      s.offset += s.buffer.sizeOnDisk();
    }
    if (!s.loadChunk()) return false;
  }
}

const TraceEnd& FileOrderReader::end() const { return impl_->end; }
uint16_t FileOrderReader::major() const { return impl_->header.major; }
uint16_t FileOrderReader::minor() const { return impl_->header.minor; }

}  // namespace memfloor::trace
