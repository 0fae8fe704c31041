// libFuzzer target: both binary readers over arbitrary bytes, as given and with chunk checksums
// repaired (so that mutations reach the record decoder), checking they agree and round-trip.
#define XXH_INLINE_ALL
#include <xxhash.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <vector>

#include "common/error.h"
#include "fuzz/fuzz_check.h"
#include "trace/codec.h"
#include "trace/format.h"

namespace memfloor::trace::fuzz {
namespace {

// Recomputes the checksum of every chunk whose header and body are present.
std::vector<uint8_t> withRepairedChecksums(const uint8_t* data, size_t size) {
  std::vector<uint8_t> bytes(data, data + size);
  uint64_t offset = kFileHeaderSize;
  using L = ChunkHeaderLayout;
  while (offset + kChunkHeaderSize <= bytes.size()) {
    const uint64_t body = codec::loadLe32(bytes.data() + offset + L::kBodyLengthAt);
    if (body > bytes.size() - offset - kChunkHeaderSize) break;
    uint8_t* chunk = bytes.data() + offset;
    codec::storeLe64(
        chunk + L::kChecksumAt,
        XXH3_64bits(chunk + L::kChecksummedAt, kChunkHeaderSize - L::kChecksummedAt + body));
    offset += kChunkHeaderSize + body;
  }
  return bytes;
}

template <typename Reader>
bool readAll(const Source& source, std::vector<Record>& records, TraceEnd& end) {
  try {
    Reader reader(source);
    Record r;
    while (reader.next(r)) records.push_back(r);
    end = reader.end();
    return true;
  } catch (const Error&) {
    return false;
  }
}

void check(const std::vector<uint8_t>& bytes) {
  MemorySource source(bytes, "fuzz.mftrace");
  std::vector<Record> in_file_order;
  std::vector<Record> in_time_order;
  TraceEnd file_end;
  TraceEnd time_end;
  const bool file_ok = readAll<FileOrderReader>(source, in_file_order, file_end);
  const bool time_ok = readAll<TimeOrderReader>(source, in_time_order, time_end);
  if (file_ok != time_ok) std::abort();  // both refuse the same headers
  if (!file_ok) return;
  // Both stop at the same chunk and say the same about it; a chunk that verified but does not
  // decode may be partly delivered (each reader finds its problem in its own order).
  if (file_end.ending != time_end.ending || file_end.offset != time_end.offset) std::abort();
  if (file_end.ending != Ending::kCorrupt) {
    if (file_end.detail != time_end.detail) std::abort();
    if (in_file_order.size() != in_time_order.size()) std::abort();
    uint64_t last = 0;
    for (const Record& r : in_time_order) {
      if (!isTimed(r)) continue;
      if (timestampOf(r) < last) failCheck("time order", r);
      last = timestampOf(r);
    }
  }
  for (const Record& r : in_file_order) checkTextRoundTrip(r);
  checkBinaryRoundTrip(in_file_order);
}

}  // namespace
}  // namespace memfloor::trace::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  memfloor::trace::fuzz::check(std::vector<uint8_t>(data, data + size));
  memfloor::trace::fuzz::check(memfloor::trace::fuzz::withRepairedChecksums(data, size));
  return 0;
}
