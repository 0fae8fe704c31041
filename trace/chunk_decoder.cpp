// Decoding of chunk bodies: record framing, every field checked, header consistency.
#include "trace/chunk_decoder.h"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstring>
#include <iterator>
#include <type_traits>
#include <utility>

#include "trace/codec.h"
#include "trace/field_cursor.h"
#include "trace/format.h"
#include "trace/record_decoder.h"

namespace memfloor::trace::detail {

namespace {

const char* recordName(uint8_t code) {
  static constexpr const char* kNames[] = {
      "record",         "string",       "module",      "frame",  "stack",  "process", "device",
      "property",       "alloc",        "free",        "pool",   "marker", "dropped", "trailer",
      "memory context", "packed alloc", "packed free", "census", "held",   "step"};
  return code < std::size(kNames) ? kNames[code] : "record";
}

std::string recordProblem(uint8_t code, uint64_t offset, const char* problem) {
  return fmt::format("{} (type {}) at body offset {}: {}", recordName(code), code, offset, problem);
}

std::string chunkProblem(const ChunkHeader& header, uint32_t records, uint64_t min_timestamp,
                         uint64_t max_timestamp) {
  if (records != header.record_count) {
    return fmt::format("header says {} records, body holds {}", header.record_count, records);
  }
  return fmt::format("header timestamps [{}, {}] differ from the body's [{}, {}]",
                     header.min_timestamp, header.max_timestamp, min_timestamp, max_timestamp);
}

// Puts record into out, reusing out's storage when it already holds the same type.
template <typename T>
void assign(Record& out, T&& record) {
  using U = std::decay_t<T>;
  if (U* slot = std::get_if<U>(&out)) {
    *slot = std::forward<T>(record);
  } else {
    out.emplace<U>(std::forward<T>(record));
  }
}

// Decodes one record's fields with the fastest cursor that is safe where it lies.
template <typename Visit>
[[gnu::always_inline]] inline RecordClass decodePayload(uint8_t code, const uint8_t* payload,
                                                        const uint8_t* payload_end,
                                                        const uint8_t* body_end,
                                                        uint64_t& timestamp, ContextTable& contexts,
                                                        Visit& visit, const char*& problem) {
  if (body_end - payload >= kPaddedMargin) [[likely]] {
    FieldCursor<true> c{payload, payload_end};
    const RecordClass kind = decodeRecord(code, c, timestamp, contexts, visit);
    problem = c.problem();
    return kind;
  }
  FieldCursor<false> c{payload, payload_end};
  const RecordClass kind = decodeRecord(code, c, timestamp, contexts, visit);
  problem = c.problem();
  return kind;
}

// Reads a record's type and length at p (< end); false when the length runs past end.
[[gnu::always_inline]] inline bool readFraming(const uint8_t*& p, const uint8_t* end, uint8_t& code,
                                               const uint8_t*& payload,
                                               const uint8_t*& payload_end) {
  code = *p++;
  uint64_t length = 0;
  if (p < end && *p < 0x80) [[likely]] {
    length = *p++;
  } else if (!codec::getVarint(p, end, length)) {
    return false;
  }
  if (length > static_cast<uint64_t>(end - p)) return false;
  payload = p;
  payload_end = p + length;
  p = payload_end;
  return true;
}

}  // namespace

void ChunkDecoder::reset(const ChunkHeader& header, std::span<const uint8_t> body) {
  header_ = header;
  begin_ = body.data();
  p_ = begin_;
  end_ = begin_ + body.size();
  timestamp_ = 0;
  min_timestamp_ = UINT64_MAX;
  max_timestamp_ = 0;
  records_ = 0;
  context_records_ = 0;
  trailer_count_ = 0;
  after_trailer_ = false;
  done_ = false;
  problem_.clear();
  contexts_.reset();
}

bool ChunkDecoder::fail(std::string problem) {
  problem_ = std::move(problem);
  done_ = true;
  return false;
}

bool ChunkDecoder::next(Record& out) {
  if (done_) return false;
  auto visit = [&out](auto&& record) { assign(out, std::move(record)); };
  while (p_ < end_) {
    const auto offset = static_cast<uint64_t>(p_ - begin_);
    uint8_t code = 0;
    const uint8_t* payload = nullptr;
    const uint8_t* payload_end = nullptr;
    if (!readFraming(p_, end_, code, payload, payload_end)) {
      return fail(recordProblem(code, offset, "length runs past the chunk body"));
    }
    if (after_trailer_) return fail(recordProblem(code, offset, "record after the trailer"));
    ++records_;
    const char* problem = nullptr;
    const RecordClass kind =
        decodePayload(code, payload, payload_end, end_, timestamp_, contexts_, visit, problem);
    if (problem != nullptr) [[unlikely]] {
      return fail(recordProblem(code, offset, problem));
    }
    if (kind == RecordClass::kContext) ++context_records_;
    if (kind == RecordClass::kUnknown || kind == RecordClass::kContext) continue;
    if (kind == RecordClass::kTimed) {
      min_timestamp_ = std::min(min_timestamp_, timestamp_);
      max_timestamp_ = std::max(max_timestamp_, timestamp_);
    }
    after_trailer_ = code == static_cast<uint8_t>(RecordCode::kTrailer);
    if (after_trailer_) [[unlikely]] {
      trailer_count_ = std::get<Trailer>(out).record_count;
    }
    return true;
  }
  if (records_ != header_.record_count || min_timestamp_ != header_.min_timestamp ||
      max_timestamp_ != header_.max_timestamp) {
    return fail(chunkProblem(header_, records_, min_timestamp_, max_timestamp_));
  }
  done_ = true;
  return false;
}

namespace {

// Puts events into index.events, the trailer aside, the other records into index.untimed.
struct IndexVisit {
  ChunkIndex& index;
  size_t& count;  // events written to index.events so far

  Event& nextEvent() {
    if (count == index.events.size()) index.events.resize(2 * count + 64);
    return index.events[count++];
  }
  void operator()(Alloc&& a) { nextEvent() = toEvent(a); }
  void operator()(Free&& f) { nextEvent() = toEvent(f); }
  void operator()(PoolEvent&& p) { nextEvent() = toEvent(p); }
  void operator()(Marker&& m) { nextEvent() = toEvent(m); }
  void operator()(Census&& c) { nextEvent() = toEvent(c); }
  void operator()(Held&& h) { nextEvent() = toEvent(h); }
  void operator()(Step&& s) { nextEvent() = toEvent(s); }
  void operator()(Trailer&& t) {
    index.trailer = t;
    index.has_trailer = true;
  }
  template <typename T>
  void operator()(T&& record) {
    index.untimed.emplace_back(std::forward<T>(record));
  }
};

}  // namespace

// The smallest and largest timestamp of a chunk's events so far, and whether they came in order.
struct TimeBounds {
  uint64_t min = UINT64_MAX;
  uint64_t max = 0;
  bool sorted = true;
  void add(uint64_t timestamp) {
    sorted = sorted && timestamp >= max;
    min = std::min(min, timestamp);
    max = std::max(max, timestamp);
  }
};

// A packed record's fields but its time and type, into e: on a little-endian host, address, size
// and correlation in one copy as the payload holds them, and the context's thread, stream and
// device in another, its kind and flags in a third (Event and MemoryContext share that order).
[[gnu::always_inline]] inline void copyPacked(Event& e, const uint8_t* payload,
                                              const MemoryContext& context) {
  using L = PackedMemoryLayout;
  constexpr size_t k64 = sizeof(uint64_t);
  constexpr size_t k32 = sizeof(uint32_t);
  static_assert(offsetof(Event, size) == offsetof(Event, address) + k64 &&
                offsetof(Event, correlation) == offsetof(Event, size) + k64);
  static_assert(L::kSizeAt == L::kAddressAt + k64 && L::kCorrelationAt == L::kSizeAt + k64);
  // thread, stream and device: the context's first bytes, up to its kind.
  constexpr size_t kContextPiece = offsetof(MemoryContext, kind);
  static_assert(offsetof(Event, stream) == offsetof(Event, thread) + k64 &&
                offsetof(Event, device) == offsetof(Event, stream) + k32 &&
                kContextPiece == offsetof(Event, device) + k32 - offsetof(Event, thread));
  static_assert(offsetof(MemoryContext, thread) == 0 &&
                offsetof(MemoryContext, stream) == offsetof(MemoryContext, thread) + k64 &&
                offsetof(MemoryContext, device) == offsetof(MemoryContext, stream) + k32);
  static_assert(offsetof(Event, flags) == offsetof(Event, kind) + 1 &&
                offsetof(MemoryContext, flags) == offsetof(MemoryContext, kind) + 1);
  static_assert(sizeof(MemoryKind) == 1);
  if constexpr (codec::kBigEndian) {
    e.address = codec::loadLe64(payload + L::kAddressAt);
    e.size = codec::loadLe64(payload + L::kSizeAt);
    e.correlation = codec::loadLe64(payload + L::kCorrelationAt);
    e.thread = context.thread;
    e.stream = context.stream;
    e.device = context.device;
  } else {
    std::memcpy(&e.address, payload + L::kAddressAt, 3 * k64);
    std::memcpy(&e.thread, &context, kContextPiece);
  }
  std::memcpy(&e.kind, &context.kind, sizeof e.kind + sizeof e.flags);
  e.stack = codec::loadLe32(payload + L::kStackAt);
}

// The common records: a stretch of well-formed packed allocs and frees from p on, each straight
// into index.events from `count` on. Anything else (or a packed record with an undefined context)
// ends the stretch, for the general path, which checks it whole. Returns the events decoded.
[[gnu::always_inline]] inline size_t decodePacked(const uint8_t*& position, const uint8_t* end,
                                                  uint64_t& timestamp_in_out, ChunkIndex& index,
                                                  size_t count, TimeBounds& bounds) {
  constexpr auto kAllocPacked = static_cast<uint8_t>(RecordCode::kAllocPacked);
  constexpr ptrdiff_t kPackedRecord = kPackedMemoryRecord;  // type, one-byte length, payload
  // A record's type and one-byte length in one load: a packed alloc or free, and the length every
  // packed payload has.
  constexpr auto kPackedHead = static_cast<uint16_t>(kAllocPacked | kPackedMemoryPayload << 8);
  static_assert(static_cast<uint8_t>(RecordCode::kFreePacked) == kAllocPacked + 1);
  static_assert(static_cast<int>(EventType::kFree) == static_cast<int>(EventType::kAlloc) + 1);
  // Locals, not index's members nor the caller's: the byte-sized stores below may alias anything
  // else, and the compiler would reload what they might have changed.
  const uint8_t* p = position;
  uint64_t timestamp = timestamp_in_out;
  using L = PackedMemoryLayout;
  const MemoryContext* const contexts = index.contexts.entries;
  Event* const first = index.events.data() + count;
  const auto fit = static_cast<size_t>(std::min<ptrdiff_t>(
      static_cast<ptrdiff_t>(index.events.size() - count), (end - p) / kPackedRecord));
  Event* const stop = first + fit;
  Event* out = first;
  const uint64_t before = timestamp;
  int32_t deltas = 0;  // every delta or'ed: negative where one was
  while (out != stop && static_cast<uint16_t>(codec::loadLe16(p) - kPackedHead) <= 1) {
    const uint8_t* const payload = p + 2;
    const MemoryContext& context = contexts[payload[L::kContextAt]];
    if (!context.defined) [[unlikely]]
      break;
    const auto delta = static_cast<int32_t>(codec::loadLe32(payload + L::kTimestampDeltaAt));
    timestamp += static_cast<uint64_t>(static_cast<int64_t>(delta));
    deltas |= delta;
    Event& e = *out++;
    e.timestamp = timestamp;
    copyPacked(e, payload, context);
    e.type = static_cast<EventType>(p[0] - kAllocPacked);
    p += kPackedRecord;
  }
  position = p;
  timestamp_in_out = timestamp;
  if (out == first) return 0;
  // No delta was negative and their sum did not wrap (each is below 2^31, so a stretch wraps at
  // most once, and ends below where it began if it did): the stretch is in order, and its ends
  // are its smallest and largest timestamps.
  if (deltas >= 0 && timestamp >= before) [[likely]] {
    bounds.add(first->timestamp);
    bounds.max = std::max(bounds.max, timestamp);
  } else {
    for (const Event* e = first; e != out; ++e) bounds.add(e->timestamp);
  }
  return static_cast<size_t>(out - first);
}

std::string indexChunk(const ChunkHeader& header, std::span<const uint8_t> body,
                       ChunkIndex& index) {
  index.untimed.clear();
  index.has_trailer = false;
  index.contexts.reset();
  // Every event takes at least 8 bytes (a marker: type, length, six one-byte fields); a body
  // holding more events than its header says grows the vector (and fails the count check).
  index.events.resize(std::min<size_t>(header.record_count, body.size() / 8 + 1));
  size_t count = 0;
  const uint8_t* p = body.data();
  const uint8_t* const end = p + body.size();
  uint64_t timestamp = 0;
  TimeBounds bounds;
  uint32_t records = 0;
  uint32_t contexts = 0;
  IndexVisit visit{index, count};
  auto failed = [&](std::string problem) {
    index.events.clear();
    return problem;
  };
  while (p < end) {
    if (!index.has_trailer) [[likely]] {
      const size_t decoded = decodePacked(p, end, timestamp, index, count, bounds);
      count += decoded;
      records += static_cast<uint32_t>(decoded);
      if (p == end) break;
    }
    const auto offset = static_cast<uint32_t>(p - body.data());
    uint8_t code = 0;
    const uint8_t* payload = nullptr;
    const uint8_t* payload_end = nullptr;
    if (!readFraming(p, end, code, payload, payload_end)) [[unlikely]] {
      return failed(recordProblem(code, offset, "length runs past the chunk body"));
    }
    if (index.has_trailer) [[unlikely]] {
      return failed(recordProblem(code, offset, "record after the trailer"));
    }
    ++records;
    const char* problem = nullptr;
    const RecordClass kind =
        decodePayload(code, payload, payload_end, end, timestamp, index.contexts, visit, problem);
    if (problem != nullptr) [[unlikely]] {
      return failed(recordProblem(code, offset, problem));
    }
    if (kind == RecordClass::kContext) ++contexts;
    if (kind == RecordClass::kTimed) bounds.add(timestamp);
  }
  index.events.resize(count);
  index.sorted = bounds.sorted;
  if (records != header.record_count || bounds.min != header.min_timestamp ||
      bounds.max != header.max_timestamp) {
    return failed(chunkProblem(header, records, bounds.min, bounds.max));
  }
  index.trace_records = records - contexts;
  return {};
}

void sortEvents(ChunkIndex& index, SortScratch& scratch) {
  EventVector& events = index.events;
  if (index.sorted || events.size() < 2) return;
  if (events.size() < 64) {
    std::stable_sort(events.begin(), events.end(),
                     [](const Event& a, const Event& b) { return a.timestamp < b.timestamp; });
    return;
  }
  uint64_t low = UINT64_MAX;
  uint64_t high = 0;
  for (const Event& e : events) {
    low = std::min(low, e.timestamp);
    high = std::max(high, e.timestamp);
  }
  using Key = SortScratch::Key;
  std::vector<Key>& keys = scratch.keys;
  std::vector<Key>& other = scratch.keys2;
  keys.resize(events.size());
  other.resize(events.size());
  for (size_t i = 0; i < events.size(); ++i) {
    keys[i] = {events[i].timestamp - low, static_cast<uint32_t>(i)};
  }
  constexpr unsigned kDigitBits = 11;
  constexpr size_t kBuckets = size_t{1} << kDigitBits;
  const auto range_bits = static_cast<unsigned>(std::bit_width(high - low));
  uint32_t counts[kBuckets];
  // Least significant digit first; each pass is stable, so equal timestamps keep file order.
  for (unsigned shift = 0; shift < range_bits; shift += kDigitBits) {
    std::fill(std::begin(counts), std::end(counts), 0u);
    for (const Key& k : keys) ++counts[(k.timestamp >> shift) & (kBuckets - 1)];
    uint32_t total = 0;
    for (uint32_t& c : counts) total += std::exchange(c, total);
    for (const Key& k : keys) other[counts[(k.timestamp >> shift) & (kBuckets - 1)]++] = k;
    keys.swap(other);
  }
  scratch.events.resize(events.size());
  for (size_t i = 0; i < keys.size(); ++i) scratch.events[i] = events[keys[i].position];
  events.swap(scratch.events);
}

}  // namespace memfloor::trace::detail
