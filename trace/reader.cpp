// What both readers share: the file header checks, the trace sniffing and describe(TraceEnd).
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

}  // namespace memfloor::trace
