// The binary trace format: constants and the encoding shared by writer and reader.
//
//   file    := file_header chunk*
//   file_header (16 bytes, little endian):
//     char[8] magic = "MFTRACE\0" | u16 major | u16 minor | u32 reserved (0)
//   chunk   := chunk_header body
//   chunk_header (32 bytes, little endian):
//     u64 checksum      XXH3_64bits over the 24 header bytes after it and the body
//     u32 body_length   bytes of body, at most kMaxChunkBody
//     u32 record_count  records in body
//     u64 min_timestamp smallest timestamp of a timed record in body (UINT64_MAX if none)
//     u64 max_timestamp largest one (0 if none)
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
inline constexpr uint16_t kMinorVersion = 1;
inline constexpr uint32_t kFileHeaderSize = 16;
inline constexpr uint32_t kChunkHeaderSize = 32;
inline constexpr uint32_t kMaxChunkBody = 16u << 20;  // readers refuse larger chunks

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
};

// The packed alloc/free payload (little endian, at fixed offsets; a longer payload's extra bytes
// are skipped as appended fields):
//   i32 timestamp delta | u8 context | u32 stack | u64 address | u64 size | u64 correlation
inline constexpr uint32_t kPackedMemoryPayload = 33;
inline constexpr uint32_t kMemoryContexts = 256;  // context indexes 0..255, per chunk

}  // namespace memfloor::trace
