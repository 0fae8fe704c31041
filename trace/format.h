// The binary trace format: the layouts and constants shared by writer and readers. This header is
// the one place that knows where each field of the file header, the chunk header and the packed
// alloc/free payload lies; docs/trace-format.md is its user-facing description.
//
//   file    := file_header chunk*
//   chunk   := chunk_header body
//   body    := record*
//   record  := u8 type | varint length | payload[length]
//
// Payload fields are unsigned LEB128 varints unless noted; signed values are zigzag-encoded;
// strings are varint length + bytes. A reader skips record types it does not know and payload
// bytes after the fields it knows: a minor version may add record types and append fields.
// Timestamps of timed records are stored as a zigzag delta from the previous timed record of the
// same chunk (the first one from 0), so every chunk decodes on its own. Packed alloc/free records
// (1.1) have fixed-width fields and name a memory context defined earlier in their chunk.
//
// A writer killed at any byte leaves a prefix whose complete chunks verify; the trailer record,
// alone in the last chunk, says the writer closed cleanly. docs/trace-format.md has the field
// list of every record type.
#pragma once

#include <cstdint>

namespace memfloor::trace {

inline constexpr char kMagic[8] = {'M', 'F', 'T', 'R', 'A', 'C', 'E', '\0'};
inline constexpr uint16_t kMajorVersion = 1;
inline constexpr uint16_t kMinorVersion = 4;          // 1.4: step records (records.h)
inline constexpr uint32_t kMaxChunkBody = 16u << 20;  // readers refuse larger chunks

// The file header; integers little endian.
//
//    0                       8           10          12                      16
//   +-----------------------+-----------+-----------+-----------------------+
//   | magic "MFTRACE\0"     | major u16 | minor u16 | reserved u32          |
//   | char[8]               |           |           | (written 0, ignored)  |
//   +-----------------------+-----------+-----------+-----------------------+
struct FileHeaderLayout {
  static constexpr uint32_t kMagicAt = 0;
  static constexpr uint32_t kMajorAt = 8;
  static constexpr uint32_t kMinorAt = 10;
  static constexpr uint32_t kReservedAt = 12;
  static constexpr uint32_t kBytes = 16;
  // Each field right after the one before, as drawn.
  static_assert(kMajorAt == kMagicAt + sizeof kMagic && kMinorAt == kMajorAt + 2 &&
                kReservedAt == kMinorAt + 2 && kBytes == kReservedAt + 4);
};
inline constexpr uint32_t kFileHeaderSize = FileHeaderLayout::kBytes;

// The chunk header, before each chunk's body; integers little endian.
//
//    0               8             12             16              24              32
//   +---------------+-------------+--------------+---------------+---------------+
//   | checksum      | body_length | record_count | min_timestamp | max_timestamp |
//   | u64           | u32         | u32          | u64           | u64           |
//   +---------------+-------------+--------------+---------------+---------------+
//                   |<------------ checksummed, and the body after it ---------->
//
//   checksum       XXH3_64bits (seed 0) over the header bytes after it and the body
//   body_length    bytes of body, 1 .. kMaxChunkBody
//   record_count   records in body (memory contexts and unknown types included)
//   min_timestamp  smallest timestamp of a timed record in body (UINT64_MAX if none)
//   max_timestamp  largest one (0 if none)
struct ChunkHeaderLayout {
  static constexpr uint32_t kChecksumAt = 0;
  static constexpr uint32_t kBodyLengthAt = 8;
  static constexpr uint32_t kRecordCountAt = 12;
  static constexpr uint32_t kMinTimestampAt = 16;
  static constexpr uint32_t kMaxTimestampAt = 24;
  static constexpr uint32_t kBytes = 32;
  static constexpr uint32_t kChecksummedAt = kBodyLengthAt;  // the checksum covers from here on
  // Each field right after the one before, as drawn.
  static_assert(kBodyLengthAt == kChecksumAt + 8 && kRecordCountAt == kBodyLengthAt + 4 &&
                kMinTimestampAt == kRecordCountAt + 4 && kMaxTimestampAt == kMinTimestampAt + 8 &&
                kBytes == kMaxTimestampAt + 8);
};
inline constexpr uint32_t kChunkHeaderSize = ChunkHeaderLayout::kBytes;

// On-disk record type codes. Never renumber; add new codes at the end.
enum class RecordCode : uint8_t {
  kString = 1,
  kModule = 2,
  kFrame = 3,
  kStack = 4,
  kProcess = 5,
  kDevice = 6,
  kProperty = 7,
  kAlloc = 8,
  kFree = 9,
  kPool = 10,
  kMarker = 11,
  kDropped = 12,
  kTrailer = 13,
  // 1.1: alloc and free in a fixed-width form, with the fields that repeat (kind, device, stream,
  // thread, flags) carried by a memory context defined earlier in the same chunk.
  kMemoryContext = 14,
  kAllocPacked = 15,
  kFreePacked = 16,
  // 1.3: a companion's census of the storages a process holds, and each storage it found.
  kCensus = 17,
  kHeld = 18,
  // 1.4: the begin and end of a training step, from a companion.
  kStep = 19,
};

// The payload of a packed alloc or free (1.1): fixed offsets, integers little endian. A longer
// payload's bytes after these are fields appended by a later minor version, skipped.
//
//    0           4         5           9              17             25                 33
//   +-----------+---------+-----------+--------------+--------------+------------------+
//   | timestamp | context | stack u32 | address u64  | size u64     | correlation u64  |
//   | delta i32 | u8      |           |              |              |                  |
//   +-----------+---------+-----------+--------------+--------------+------------------+
//
//   timestamp delta  from the previous timed record of the chunk, two's complement
//   context          index of a memory context defined earlier in the chunk: it carries the
//                    kind, device, stream, thread and flags
struct PackedMemoryLayout {
  static constexpr uint32_t kTimestampDeltaAt = 0;
  static constexpr uint32_t kContextAt = 4;
  static constexpr uint32_t kStackAt = 5;
  static constexpr uint32_t kAddressAt = 9;
  static constexpr uint32_t kSizeAt = 17;
  static constexpr uint32_t kCorrelationAt = 25;
  static constexpr uint32_t kBytes = 33;
  // Each field right after the one before, as drawn.
  static_assert(kContextAt == kTimestampDeltaAt + 4 && kStackAt == kContextAt + 1 &&
                kAddressAt == kStackAt + 4 && kSizeAt == kAddressAt + 8 &&
                kCorrelationAt == kSizeAt + 8 && kBytes == kCorrelationAt + 8);
};
inline constexpr uint32_t kPackedMemoryPayload = PackedMemoryLayout::kBytes;
// A whole packed record as the writer frames it: type, a one-byte varint length, the payload.
static_assert(kPackedMemoryPayload < 0x80, "the length of a packed payload is one varint byte");
inline constexpr uint32_t kPackedMemoryRecord = 2 + kPackedMemoryPayload;

inline constexpr uint32_t kMemoryContexts = 256;  // context indexes 0..255, per chunk

}  // namespace memfloor::trace
