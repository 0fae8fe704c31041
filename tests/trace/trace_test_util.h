// Builders and helpers shared by the trace tests: sample records, binary/text round trips, chunks.
#pragma once

#define XXH_INLINE_ALL
#include <xxhash.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdint>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "trace/codec.h"
#include "trace/format.h"
#include "trace/reader.h"
#include "trace/records.h"
#include "trace/sink.h"
#include "trace/source.h"
#include "trace/text.h"
#include "trace/writer.h"

namespace Catch {
template <>
struct StringMaker<memfloor::trace::Record> {
  static std::string convert(const memfloor::trace::Record& record) {
    std::ostringstream out;
    memfloor::trace::writeText(out, record);
    std::string text = out.str();
    if (!text.empty()) text.pop_back();
    return text;
  }
};
}  // namespace Catch

namespace memfloor::trace::testing {

using Bytes = std::vector<uint8_t>;

// One record of every type, with values that exercise the encodings: large numbers, negative
// ranks, escapes, unknown flag bits, an empty stack.
inline std::vector<Record> everyRecordType() {
  static constexpr char kTricky[] = "tab\there \"quoted\" back\\slash nul\0 high\xff\n";
  Alloc alloc;
  alloc.timestamp = 1'000'000'123;
  alloc.kind = MemoryKind::kManaged;
  alloc.device = 3;
  alloc.stream = 7;
  alloc.address = 0x7f00'0000'1000;
  alloc.size = 4096;
  alloc.thread = 11;
  alloc.stack = 2;
  alloc.correlation = 5;
  alloc.flags = kMemoryFlagAsync | 0x80;
  Free free;
  free.timestamp = 999;  // earlier than the alloc: a negative delta
  free.kind = MemoryKind::kPinned;
  free.address = UINT64_MAX;
  free.size = UINT64_MAX;
  free.thread = UINT64_MAX;
  free.correlation = UINT64_MAX;
  free.stream = UINT32_MAX;
  free.stack = UINT32_MAX;
  free.device = UINT32_MAX;
  free.flags = kMemoryFlagVmm;
  return {
      StringDef{1, "iteration 1"},
      StringDef{2, std::string(kTricky, sizeof kTricky - 1)},
      StringDef{3, ""},
      ModuleDef{4, 2, 0x7f3a'0000'0000, 104857600, 3},
      FrameDef{5, FrameKind::kPython, 4, 0x1a2b3c, 1, 2, 42},
      FrameDef{6, FrameKind::kNative, 4, 0, 0, 0, 0},
      StackDef{7, {5, 6, 5}},
      StackDef{8, {}},
      ProcessInfo{4242, 1'700'000'000'000'000'000, 1, 2, 0, -1, INT32_MIN},
      ProcessInfo{1, 0, 0, 0, INT32_MAX, 3, 8},
      DeviceInfo{0, 1, 150'000'000'000},
      Property{1, 2},
      alloc,
      free,
      PoolEvent{900, 0x5000, 2097152, 1024, 1, PoolEventType::kTrimmed, 2},
      Marker{5, 11, 0, 1, 0, MarkerType::kPush},
      Marker{UINT64_MAX, 11, 0, 0, 0, MarkerType::kPop},
      Marker{0, 12, 77, 1, 3, MarkerType::kStart},
      Marker{40, 12, 77, 0, 0, MarkerType::kEnd},
      Marker{41, 0, 0, 2, 0, MarkerType::kInstant},
      Census{950, 530000, 1'200'000'000, 2, 1, 4, false},
      Held{950, 0x7f00'0020'0000, 402653184, 1, 2, 1, 3, HeldRole::kOptimizerState},
      Held{950, UINT64_MAX, UINT64_MAX, UINT32_MAX, 0, UINT32_MAX, 1, HeldRole::kOther},
      Step{960, 11, 5, 0, StepPhase::kBegin},
      Step{990, 0, UINT32_MAX, UINT32_MAX, StepPhase::kEnd},
      Dropped{DropSource::kWriter, 12},
      Dropped{DropSource::kCupti, 0},
  };
}

inline Alloc makeAlloc(uint64_t timestamp, uint64_t address, uint64_t size = 64) {
  Alloc a;
  a.timestamp = timestamp;
  a.address = address;
  a.size = size;
  return a;
}

inline Free makeFree(uint64_t timestamp, uint64_t address) {
  Free f;
  f.timestamp = timestamp;
  f.address = address;
  return f;
}

// Writes records (and, when end_timestamp is given, the trailer) to a binary trace in memory.
inline Bytes writeBinary(const std::vector<Record>& records,
                         uint32_t chunk_bytes = Writer::kDefaultChunkBytes, bool finish = true,
                         uint64_t end_timestamp = 0,
                         Writer::Encoding encoding = Writer::Encoding::kPacked) {
  MemorySink sink;
  Writer writer(sink, chunk_bytes, encoding);
  REQUIRE(writer.begin());
  for (const Record& r : records) REQUIRE(writer.write(r));
  if (finish) REQUIRE(writer.finish(end_timestamp));
  REQUIRE(writer.flush());
  return sink.bytes();
}

template <typename Reader>
std::vector<Record> readAll(const Bytes& bytes, TraceEnd* end = nullptr) {
  MemorySource source(bytes, "test.mftrace");
  Reader reader(source);
  std::vector<Record> out;
  Record r;
  while (reader.next(r)) out.push_back(r);
  if (end != nullptr) *end = reader.end();
  return out;
}

inline std::string toText(const std::vector<Record>& records) {
  std::ostringstream out;
  for (const Record& r : records) writeText(out, r);
  return out.str();
}

inline std::vector<Record> fromText(const std::string& text, const std::string& name = "t.txt") {
  std::istringstream in(text);
  TextReader reader(in, name);
  std::vector<Record> out;
  Record r;
  while (reader.next(r)) out.push_back(r);
  return out;
}

// A chunk built by hand (header fields as given, checksum computed), for decoder tests.
inline Bytes makeChunk(const Bytes& body, uint32_t record_count, uint64_t min_ts = UINT64_MAX,
                       uint64_t max_ts = 0) {
  using L = ChunkHeaderLayout;
  Bytes chunk(kChunkHeaderSize);
  codec::storeLe32(chunk.data() + L::kBodyLengthAt, static_cast<uint32_t>(body.size()));
  codec::storeLe32(chunk.data() + L::kRecordCountAt, record_count);
  codec::storeLe64(chunk.data() + L::kMinTimestampAt, min_ts);
  codec::storeLe64(chunk.data() + L::kMaxTimestampAt, max_ts);
  chunk.insert(chunk.end(), body.begin(), body.end());
  codec::storeLe64(chunk.data() + L::kChecksumAt,
                   XXH3_64bits(chunk.data() + L::kChecksummedAt, chunk.size() - L::kChecksummedAt));
  return chunk;
}

inline Bytes fileHeader(uint16_t major = kMajorVersion, uint16_t minor = kMinorVersion) {
  using L = FileHeaderLayout;
  Bytes header(kFileHeaderSize);
  std::copy(std::begin(kMagic), std::end(kMagic), header.begin() + L::kMagicAt);
  codec::storeLe16(header.data() + L::kMajorAt, major);
  codec::storeLe16(header.data() + L::kMinorAt, minor);
  return header;
}

inline Bytes concat(std::initializer_list<Bytes> parts) {
  Bytes out;
  for (const Bytes& p : parts) out.insert(out.end(), p.begin(), p.end());
  return out;
}

// record := u8 type | varint length | payload; payload given as varints.
inline void appendVarint(Bytes& out, uint64_t v) {
  while (v >= 0x80) {
    out.push_back(static_cast<uint8_t>(v | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<uint8_t>(v));
}

inline Bytes makeRecord(uint8_t type, std::initializer_list<uint64_t> varints) {
  Bytes payload;
  for (uint64_t v : varints) appendVarint(payload, v);
  Bytes record{type};
  appendVarint(record, payload.size());
  record.insert(record.end(), payload.begin(), payload.end());
  return record;
}

// A packed alloc/free record (format 1.1): fixed-width payload, then `extra` appended bytes.
inline Bytes makePackedRecord(uint8_t type, int32_t delta, uint8_t context, uint32_t stack,
                              uint64_t address, uint64_t size, uint64_t correlation,
                              size_t extra = 0) {
  // Field after field, as docs/trace-format.md lists them: not at format.h's offsets, so that
  // the writer's and the readers' offsets are checked against the documented order and widths.
  Bytes record{type, static_cast<uint8_t>(kPackedMemoryPayload + extra)};
  auto put = [&record](auto v) {  // an unsigned field: its width is its type's
    uint8_t bytes[sizeof(uint64_t)];
    codec::storeLe64(bytes, v);  // the first sizeof v bytes are v's own little-endian form
    record.insert(record.end(), bytes, bytes + sizeof v);
  };
  put(static_cast<uint32_t>(delta));
  put(context);
  put(stack);
  put(address);
  put(size);
  put(correlation);
  record.insert(record.end(), extra, 0xee);
  return record;
}

}  // namespace memfloor::trace::testing

namespace memfloor::trace::testing {

// The chunks of a well-formed file: where each starts and how many records it holds.
struct ChunkSpan {
  uint64_t offset;
  uint64_t size;
  uint32_t records;  // delivered by a reader: memory contexts are not
};

inline std::vector<ChunkSpan> chunkSpans(const Bytes& file) {
  std::vector<ChunkSpan> spans;
  uint64_t offset = kFileHeaderSize;
  while (offset + kChunkHeaderSize <= file.size()) {
    const uint32_t body = codec::loadLe32(file.data() + offset + ChunkHeaderLayout::kBodyLengthAt);
    uint32_t records = codec::loadLe32(file.data() + offset + ChunkHeaderLayout::kRecordCountAt);
    const uint8_t* p = file.data() + offset + kChunkHeaderSize;
    const uint8_t* end = p + body;
    while (p < end) {  // well-formed: every length fits one byte
      if (*p == static_cast<uint8_t>(RecordCode::kMemoryContext)) --records;
      p += 2 + p[1];
    }
    spans.push_back({offset, kChunkHeaderSize + uint64_t{body}, records});
    offset += kChunkHeaderSize + body;
  }
  return spans;
}

// The files kept in testdata/trace/<dir> (fuzz findings, fixtures), sorted.
inline std::vector<std::string> testdataFiles(const std::string& dir) {
  std::vector<std::string> files;
  const std::filesystem::path root = std::filesystem::path(MEMFLOOR_TESTDATA_DIR) / "trace" / dir;
  if (!std::filesystem::is_directory(root)) return files;
  for (const auto& entry : std::filesystem::directory_iterator(root)) {
    if (entry.is_regular_file()) files.push_back(entry.path().string());
  }
  std::sort(files.begin(), files.end());
  return files;
}

inline Bytes readFile(const std::string& path) {
  FileSource source(path);
  Bytes bytes(source.size());
  bytes.resize(source.readAt(0, bytes.data(), bytes.size()));
  return bytes;
}

}  // namespace memfloor::trace::testing
