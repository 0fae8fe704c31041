// The trace writer: records -> chunk buffer -> checksummed chunks on a sink (layout in writer.h).
#include "trace/writer.h"

#define XXH_INLINE_ALL
#include <xxhash.h>

#include <algorithm>
#include <cstring>
#include <new>

#include "trace/codec.h"
#include "trace/format.h"

namespace memfloor::trace {

constexpr size_t kMaxRecordBytes = 96;  // the largest record's fields

using codec::putVarint;
using codec::varintSize;

// The fixed-size fields of one record, encoded before the chunk is chosen (the timestamp delta of
// a timed record depends on it, so it is encoded separately). kMaxRecordBytes hold the largest
// record.
struct Writer::Fields {
  uint8_t bytes[kMaxRecordBytes];
  size_t size = 0;
  Fields& put(uint64_t v) {
    size = static_cast<size_t>(putVarint(bytes + size, v) - bytes);
    return *this;
  }
};

namespace {

constexpr uint8_t code(RecordCode c) { return static_cast<uint8_t>(c); }

uint8_t memoryKindValue(MemoryKind kind) {
  const auto v = static_cast<uint8_t>(kind);
  return v < kMemoryKindCount ? v : static_cast<uint8_t>(MemoryKind::kUnknown);
}

}  // namespace

Writer::Writer(Sink& sink, uint32_t chunk_bytes, Encoding encoding)
    : sink_(sink),
      chunk_bytes_(std::clamp(chunk_bytes, kMinChunkBytes, kMaxChunkBody)),
      encoding_(encoding) {
  buffer_.reset(new (std::nothrow) uint8_t[kChunkHeaderSize + chunk_bytes_]);
}

Writer::~Writer() = default;

bool Writer::begin() {
  if (began_ || failed_ || !buffer_) return false;
  uint8_t header[kFileHeaderSize] = {};
  using L = FileHeaderLayout;
  std::memcpy(header + L::kMagicAt, kMagic, sizeof kMagic);
  codec::storeLe16(header + L::kMajorAt, kMajorVersion);
  codec::storeLe16(header + L::kMinorAt, kMinorVersion);
  began_ = true;
  failed_ = !sink_.write(header, sizeof header);
  return !failed_;
}

bool Writer::flush() {
  if (failed_ || !began_ || !buffer_) return false;
  if (body_size_ == 0) return true;
  using L = ChunkHeaderLayout;
  uint8_t* header = buffer_.get();
  codec::storeLe32(header + L::kBodyLengthAt, body_size_);
  codec::storeLe32(header + L::kRecordCountAt, chunk_records_);
  codec::storeLe64(header + L::kMinTimestampAt, min_timestamp_);
  codec::storeLe64(header + L::kMaxTimestampAt, max_timestamp_);
  codec::storeLe64(
      header + L::kChecksumAt,
      XXH3_64bits(header + L::kChecksummedAt, L::kBytes - L::kChecksummedAt + body_size_));
  failed_ = !sink_.write(header, kChunkHeaderSize + body_size_);
  body_size_ = 0;
  chunk_records_ = 0;
  min_timestamp_ = UINT64_MAX;
  max_timestamp_ = 0;
  previous_timestamp_ = 0;
  if (any_context_) {  // contexts are per chunk
    std::fill(std::begin(context_defined_), std::end(context_defined_), false);
    any_context_ = false;
  }
  return !failed_;
}

uint8_t* Writer::reserve(uint8_t record_code, size_t payload_size) {
  if (!usable()) return nullptr;
  const size_t need = 1 + varintSize(payload_size) + payload_size;
  if (need > chunk_bytes_) return nullptr;  // would not fit even an empty chunk
  if (need > chunk_bytes_ - body_size_ && !flush()) return nullptr;
  uint8_t* p = buffer_.get() + kChunkHeaderSize + body_size_;
  *p++ = record_code;
  return putVarint(p, payload_size);
}

void Writer::commit(uint8_t* end) {
  body_size_ = static_cast<uint32_t>(end - (buffer_.get() + kChunkHeaderSize));
  ++chunk_records_;
  ++records_;
}

bool Writer::append(uint8_t record_code, const Fields& fields) {
  uint8_t* p = reserve(record_code, fields.size);
  if (p == nullptr) return false;
  std::memcpy(p, fields.bytes, fields.size);
  commit(p + fields.size);
  return true;
}

bool Writer::appendTimed(uint8_t record_code, uint64_t timestamp, const Fields& fields) {
  if (!usable()) return false;
  auto delta = [&] { return codec::zigzag(static_cast<int64_t>(timestamp - previous_timestamp_)); };
  size_t payload = varintSize(delta()) + fields.size;
  if (1 + varintSize(payload) + payload > chunk_bytes_ - body_size_ && body_size_ > 0) {
    if (!flush()) return false;  // the delta base is 0 in the new chunk
    payload = varintSize(delta()) + fields.size;
  }
  uint8_t* p = reserve(record_code, payload);
  if (p == nullptr) return false;
  p = putVarint(p, delta());
  std::memcpy(p, fields.bytes, fields.size);
  commit(p + fields.size);
  previous_timestamp_ = timestamp;
  min_timestamp_ = std::min(min_timestamp_, timestamp);
  max_timestamp_ = std::max(max_timestamp_, timestamp);
  return true;
}

bool Writer::writeMemoryEvent(uint8_t record_code, const MemoryEvent& e) {
  if (encoding_ == Encoding::kPacked) {
    const int64_t delta = static_cast<int64_t>(e.timestamp - previous_timestamp_);
    // The delta is from the previous event of the chunk where the record lands: checked again
    // there, since sealing the chunk makes it the timestamp itself.
    if (delta >= INT32_MIN && delta <= INT32_MAX) {
      return writePacked(code(record_code == code(RecordCode::kAlloc) ? RecordCode::kAllocPacked
                                                                      : RecordCode::kFreePacked),
                         e);
    }
  }
  Fields f;
  f.put(memoryKindValue(e.kind)).put(e.device).put(e.stream).put(e.address).put(e.size);
  f.put(e.thread).put(e.stack).put(e.correlation).put(e.flags);
  return appendTimed(record_code, e.timestamp, f);
}

//   packed payload: PackedMemoryLayout (trace/format.h)
//   memory context payload (varints): | index | kind | device | stream | thread | flags |
bool Writer::writePacked(uint8_t record_code, const MemoryEvent& e) {
  if (!usable()) return false;
  const Context context{e.thread, e.device, e.stream, memoryKindValue(e.kind), e.flags};
  const uint64_t hash = (e.thread * 0x9E3779B97F4A7C15ull) ^ (uint64_t{e.device} << 40) ^
                        (uint64_t{e.stream} * 0xC2B2AE3D27D4EB4Full) ^
                        (uint64_t{context.kind} << 8) ^ context.flags;
  const auto index = static_cast<uint8_t>((hash ^ (hash >> 29) ^ (hash >> 47)) & 0xff);
  Fields f;
  f.put(index).put(context.kind).put(context.device).put(context.stream).put(context.thread);
  f.put(context.flags);
  // Room for the context (if needed) and the event in this chunk, or a new chunk.
  const size_t context_record = 2 + f.size;
  const bool defined = context_defined_[index] && contexts_[index] == context;
  const size_t need = kPackedMemoryRecord + (defined ? 0 : context_record);
  if (need > chunk_bytes_ - body_size_ && body_size_ > 0 && !flush()) return false;
  int64_t delta = static_cast<int64_t>(e.timestamp - previous_timestamp_);
  if (delta < INT32_MIN || delta > INT32_MAX) {  // a new chunk: the delta is from 0
    return writeMemoryEvent(record_code == code(RecordCode::kAllocPacked) ? code(RecordCode::kAlloc)
                                                                          : code(RecordCode::kFree),
                            e);
  }
  if (!(context_defined_[index] && contexts_[index] == context)) {
    if (!append(code(RecordCode::kMemoryContext), f)) return false;
    contexts_[index] = context;
    context_defined_[index] = true;
    any_context_ = true;
    --records_;  // framing, not a record of the trace
  }
  uint8_t* p = reserve(record_code, kPackedMemoryPayload);
  if (p == nullptr) return false;
  using L = PackedMemoryLayout;
  codec::storeLe32(p + L::kTimestampDeltaAt, static_cast<uint32_t>(static_cast<int32_t>(delta)));
  p[L::kContextAt] = index;
  codec::storeLe32(p + L::kStackAt, e.stack);
  codec::storeLe64(p + L::kAddressAt, e.address);
  codec::storeLe64(p + L::kSizeAt, e.size);
  codec::storeLe64(p + L::kCorrelationAt, e.correlation);
  commit(p + kPackedMemoryPayload);
  previous_timestamp_ = e.timestamp;
  min_timestamp_ = std::min(min_timestamp_, e.timestamp);
  max_timestamp_ = std::max(max_timestamp_, e.timestamp);
  return true;
}

bool Writer::write(const Alloc& alloc) { return writeMemoryEvent(code(RecordCode::kAlloc), alloc); }
bool Writer::write(const Free& free) { return writeMemoryEvent(code(RecordCode::kFree), free); }

bool Writer::write(const Marker& m) {
  if (static_cast<uint8_t>(m.type) >= kMarkerTypeCount) return false;
  Fields f;
  f.put(static_cast<uint8_t>(m.type)).put(m.thread).put(m.id).put(m.name).put(m.domain);
  return appendTimed(code(RecordCode::kMarker), m.timestamp, f);
}

bool Writer::write(const PoolEvent& p) {
  if (static_cast<uint8_t>(p.type) >= kPoolEventTypeCount) return false;
  Fields f;
  f.put(static_cast<uint8_t>(p.type)).put(p.device).put(p.address).put(p.size).put(p.utilized);
  f.put(p.pool_type);
  return appendTimed(code(RecordCode::kPool), p.timestamp, f);
}

bool Writer::write(const Census& n) {
  Fields f;
  f.put(n.device).put(n.objects).put(n.duration_ns).put(n.storages).put(n.step);
  f.put(uint8_t{n.complete});
  return appendTimed(code(RecordCode::kCensus), n.timestamp, f);
}

bool Writer::write(const Held& h) {
  if (static_cast<uint8_t>(h.role) >= kHeldRoleCount) return false;
  Fields f;
  f.put(h.device).put(h.address).put(h.size).put(h.path).put(h.via).put(h.holders);
  f.put(static_cast<uint8_t>(h.role));
  return appendTimed(code(RecordCode::kHeld), h.timestamp, f);
}

bool Writer::write(const Step& s) {
  if (static_cast<uint8_t>(s.phase) >= kStepPhaseCount) return false;
  Fields f;
  f.put(s.thread).put(s.step).put(s.optimizer_steps).put(static_cast<uint8_t>(s.phase));
  return appendTimed(code(RecordCode::kStep), s.timestamp, f);
}

bool Writer::write(const Dropped& d) {
  if (static_cast<uint8_t>(d.source) >= kDropSourceCount) return false;
  Fields f;
  f.put(static_cast<uint8_t>(d.source)).put(d.count);
  return append(code(RecordCode::kDropped), f);
}

bool Writer::write(const StringDef& string) { return writeString(string.id, string.text); }

bool Writer::writeString(StringId id, std::string_view text) {
  if (id == kNoId) return false;
  uint8_t* p =
      reserve(code(RecordCode::kString), varintSize(id) + varintSize(text.size()) + text.size());
  if (p == nullptr) return false;
  p = putVarint(putVarint(p, id), text.size());
  if (!text.empty()) std::memcpy(p, text.data(), text.size());
  commit(p + text.size());
  return true;
}

bool Writer::write(const StackDef& stack) {
  return writeStack(stack.id, stack.frames.data(), stack.frames.size());
}

bool Writer::writeStack(StackId id, const FrameId* frames, size_t count) {
  if (id == kNoId || std::find(frames, frames + count, kNoId) != frames + count) return false;
  size_t payload = varintSize(id) + varintSize(count);
  for (size_t i = 0; i < count; ++i) payload += varintSize(frames[i]);
  uint8_t* p = reserve(code(RecordCode::kStack), payload);
  if (p == nullptr) return false;
  p = putVarint(putVarint(p, id), count);
  for (size_t i = 0; i < count; ++i) p = putVarint(p, frames[i]);
  commit(p);
  return true;
}

bool Writer::write(const ModuleDef& m) {
  if (m.id == kNoId) return false;
  Fields f;
  f.put(m.id).put(m.path).put(m.base).put(m.size).put(m.build_id);
  return append(code(RecordCode::kModule), f);
}

bool Writer::write(const FrameDef& fr) {
  if (fr.id == kNoId || static_cast<uint8_t>(fr.kind) >= kFrameKindCount) return false;
  Fields f;
  f.put(fr.id).put(static_cast<uint8_t>(fr.kind)).put(fr.module).put(fr.offset);
  f.put(fr.function).put(fr.file).put(fr.line);
  return append(code(RecordCode::kFrame), f);
}

bool Writer::write(const ProcessInfo& p) {
  Fields f;
  f.put(p.pid).put(p.start_unix_ns).put(p.host).put(p.command_line);
  f.put(codec::zigzag(p.rank)).put(codec::zigzag(p.local_rank)).put(codec::zigzag(p.world_size));
  return append(code(RecordCode::kProcess), f);
}

bool Writer::write(const DeviceInfo& d) {
  Fields f;
  f.put(d.device).put(d.name).put(d.total_memory);
  return append(code(RecordCode::kDevice), f);
}

bool Writer::write(const Property& p) {
  Fields f;
  f.put(p.key).put(p.value);
  return append(code(RecordCode::kProperty), f);
}

bool Writer::write(const Trailer& t) {
  Fields f;
  f.put(t.record_count).put(t.end_timestamp);
  const bool ok = flush() && append(code(RecordCode::kTrailer), f) && flush();
  finished_ = finished_ || ok;
  return ok;
}

bool Writer::finish(uint64_t end_timestamp) {
  return write(Trailer{.record_count = records_, .end_timestamp = end_timestamp});
}

bool Writer::write(const Record& record) {
  return std::visit([this](const auto& r) { return write(r); }, record);
}

}  // namespace memfloor::trace
