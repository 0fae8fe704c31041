// What both readers share: the file header checks, the trailer's count, the trace sniffing and
// describe(TraceEnd).
#include "trace/reader.h"

#include <fmt/format.h>

#include <cstring>

#include "common/error.h"
#include "trace/codec.h"
#include "trace/file_header.h"
#include "trace/format.h"

namespace memfloor::trace {

std::string describe(const TraceEnd& end) {
  switch (end.ending) {
    case Ending::kTrailer:
      return "complete (trailer present)";
    case Ending::kTruncated:
      return fmt::format("truncated at offset {}: {}", end.offset, end.detail);
    case Ending::kCorrupt:
      return fmt::format("corrupt chunk at offset {}: {}", end.offset, end.detail);
    case Ending::kMiscounted:
      return "incomplete: " + end.detail;
  }
  return "unknown ending";
}

bool looksLikeBinaryTrace(const Source& source) {
  char magic[sizeof kMagic];
  return source.readAt(0, magic, sizeof magic) == sizeof magic &&
         std::memcmp(magic, kMagic, sizeof magic) == 0;
}

FileHeader readFileHeader(const Source& source) {
  const std::string& name = source.name();
  if (source.size() == 0) throw Error(name + ": empty file");
  uint8_t bytes[kFileHeaderSize] = {};
  const size_t got = source.readAt(0, bytes, sizeof bytes);
  if (got < sizeof kMagic || std::memcmp(bytes, kMagic, sizeof kMagic) != 0) {
    throw Error(name + ": not a memfloor trace (bad magic)");
  }
  if (got < kFileHeaderSize) {
    throw Error(fmt::format("{}: not a memfloor trace ({} bytes, shorter than the {}-byte header)",
                            name, got, kFileHeaderSize));
  }
  FileHeader header{codec::loadLe16(bytes + FileHeaderLayout::kMajorAt),
                    codec::loadLe16(bytes + FileHeaderLayout::kMinorAt)};
  if (header.major > kMajorVersion) {
    throw Error(fmt::format("{}: trace major version {} is newer than this memfloor reads ({})",
                            name, header.major, kMajorVersion));
  }
  if (header.major == 0) throw Error(name + ": trace major version 0 is not supported");
  return header;
}

void endAtTrailer(TraceEnd& end, const Source& source, uint64_t chunk_offset, uint64_t trailer_end,
                  uint64_t trailer_count, uint64_t read_before_trailer) {
  end.trailer_surplus = 0;
  if (trailer_end < source.size()) {
    end.ending = Ending::kCorrupt;
    end.offset = trailer_end;
    end.detail = fmt::format("{} bytes after the trailer chunk", source.size() - trailer_end);
  } else if (trailer_count != read_before_trailer) {
    end.ending = Ending::kMiscounted;
    end.offset = chunk_offset;
    end.detail = fmt::format("the trailer counts {} records, {} were read ({})", trailer_count,
                             read_before_trailer,
                             trailer_count > read_before_trailer ? "chunks are missing"
                                                                 : "chunks are repeated or added");
    end.trailer_surplus =
        static_cast<int64_t>(trailer_count) - static_cast<int64_t>(read_before_trailer);
  } else {
    end.ending = Ending::kTrailer;
    end.offset = trailer_end;
    end.detail.clear();
  }
}

}  // namespace memfloor::trace
