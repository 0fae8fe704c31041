// Messages for chunks that verified but did not decode (see chunk_decoder.h).
#include "trace/chunk_decoder.h"

#include <fmt/format.h>

namespace memfloor::trace::detail {

namespace {

const char* recordName(uint8_t code) {
  static constexpr const char* kNames[] = {"record",   "string", "module", "frame", "stack",
                                           "process",  "device", "property", "alloc", "free",
                                           "pool",     "marker", "dropped", "trailer"};
  return code < std::size(kNames) ? kNames[code] : "record";
}

}  // namespace

std::string recordProblem(uint8_t code, uint64_t offset, const char* problem) {
  return fmt::format("{} (type {}) at body offset {}: {}", recordName(code), code, offset,
                     problem);
}

std::string chunkProblem(const ChunkHeader& header, uint32_t records, uint64_t min_timestamp,
                         uint64_t max_timestamp) {
  if (records != header.record_count) {
    return fmt::format("header says {} records, body holds {}", header.record_count, records);
  }
  return fmt::format("header timestamps [{}, {}] differ from the body's [{}, {}]",
                     header.min_timestamp, header.max_timestamp, min_timestamp, max_timestamp);
}

}  // namespace memfloor::trace::detail
