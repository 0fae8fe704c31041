// Decoding of chunk bodies: record framing, every field checked, header consistency.
#include "trace/chunk_decoder.h"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <iterator>
#include <type_traits>
#include <utility>

#include "trace/codec.h"
#include "trace/field_cursor.h"
#include "trace/format.h"
#include "trace/record_decoder.h"

namespace memfloor::trace::detail {

namespace {

constexpr bool isEventCode(uint8_t code) {
  return code >= static_cast<uint8_t>(RecordCode::kAlloc) &&
         code <= static_cast<uint8_t>(RecordCode::kMarker);
}

const char* recordName(uint8_t code) {
  static constexpr const char* kNames[] = {"record",  "string", "module",   "frame",  "stack",
                                           "process", "device", "property", "alloc",  "free",
                                           "pool",    "marker", "dropped",  "trailer"};
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
                                                        uint64_t& timestamp, Visit& visit,
                                                        const char*& problem) {
  if (body_end - payload >= kPaddedMargin) [[likely]] {
    FieldCursor<true> c{payload, payload_end};
    const RecordClass kind = decodeRecord(code, c, timestamp, visit);
    problem = c.problem();
    return kind;
  }
  FieldCursor<false> c{payload, payload_end};
  const RecordClass kind = decodeRecord(code, c, timestamp, visit);
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
  after_trailer_ = false;
  done_ = false;
  problem_.clear();
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
        decodePayload(code, payload, payload_end, end_, timestamp_, visit, problem);
    if (problem != nullptr) [[unlikely]] {
      return fail(recordProblem(code, offset, problem));
    }
    if (kind == RecordClass::kUnknown) continue;
    if (kind == RecordClass::kTimed) {
      min_timestamp_ = std::min(min_timestamp_, timestamp_);
      max_timestamp_ = std::max(max_timestamp_, timestamp_);
    }
    after_trailer_ = code == static_cast<uint8_t>(RecordCode::kTrailer);
    return true;
  }
  if (records_ != header_.record_count || min_timestamp_ != header_.min_timestamp ||
      max_timestamp_ != header_.max_timestamp) {
    return fail(chunkProblem(header_, records_, min_timestamp_, max_timestamp_));
  }
  done_ = true;
  return false;
}

std::string indexChunk(const ChunkHeader& header, std::span<const uint8_t> body,
                       ChunkIndex& index) {
  index.events.clear();
  index.untimed.clear();
  index.has_trailer = false;
  index.sorted = true;
  const uint8_t* p = body.data();
  const uint8_t* const end = p + body.size();
  uint64_t timestamp = 0;
  uint64_t min_timestamp = UINT64_MAX;
  uint64_t max_timestamp = 0;
  uint32_t records = 0;
  auto keep = [&index](auto&& record) {
    if constexpr (std::is_same_v<std::decay_t<decltype(record)>, Trailer>) {
      index.trailer = record;
      index.has_trailer = true;
    } else {
      index.untimed.emplace_back(std::move(record));
    }
  };
  while (p < end) {
    const auto offset = static_cast<uint32_t>(p - body.data());
    uint8_t code = 0;
    const uint8_t* payload = nullptr;
    const uint8_t* payload_end = nullptr;
    if (!readFraming(p, end, code, payload, payload_end)) {
      return recordProblem(code, offset, "length runs past the chunk body");
    }
    if (index.has_trailer) return recordProblem(code, offset, "record after the trailer");
    ++records;
    if (isEventCode(code)) {  // only the timestamp now; the rest when it is delivered
      uint64_t delta = 0;
      const char* problem = nullptr;
      if (end - payload >= kPaddedMargin) [[likely]] {
        FieldCursor<true> c{payload, payload_end};
        delta = c.u64();
        if (!c.finish()) problem = c.problem();
      } else {
        FieldCursor<false> c{payload, payload_end};
        delta = c.u64();
        if (!c.finish()) problem = c.problem();
      }
      if (problem != nullptr) return recordProblem(code, offset, problem);
      timestamp += static_cast<uint64_t>(codec::unzigzag(delta));
      index.sorted = index.sorted && timestamp >= max_timestamp;
      min_timestamp = std::min(min_timestamp, timestamp);
      max_timestamp = std::max(max_timestamp, timestamp);
      index.events.push_back({timestamp, offset});
      continue;
    }
    const char* problem = nullptr;
    decodePayload(code, payload, payload_end, end, timestamp, keep, problem);
    if (problem != nullptr) return recordProblem(code, offset, problem);
  }
  if (records != header.record_count || min_timestamp != header.min_timestamp ||
      max_timestamp != header.max_timestamp) {
    return chunkProblem(header, records, min_timestamp, max_timestamp);
  }
  return {};
}

void sortEvents(ChunkIndex& index, std::vector<EventKey>& scratch) {
  std::vector<EventKey>& keys = index.events;
  if (index.sorted || keys.size() < 2) return;
  if (keys.size() < 64) {
    std::stable_sort(keys.begin(), keys.end());
    return;
  }
  uint64_t low = UINT64_MAX;
  uint64_t high = 0;
  for (const EventKey& k : keys) {
    low = std::min(low, k.timestamp);
    high = std::max(high, k.timestamp);
  }
  constexpr unsigned kDigitBits = 11;
  constexpr size_t kBuckets = size_t{1} << kDigitBits;
  const auto range_bits = static_cast<unsigned>(std::bit_width(high - low));
  scratch.resize(keys.size());
  uint32_t counts[kBuckets];
  for (unsigned shift = 0; shift < range_bits;
       shift += kDigitBits) {  // least significant digit first
    std::fill(std::begin(counts), std::end(counts), 0u);
    for (const EventKey& k : keys) ++counts[((k.timestamp - low) >> shift) & (kBuckets - 1)];
    uint32_t total = 0;
    for (uint32_t& c : counts) total += std::exchange(c, total);
    for (const EventKey& k : keys)
      scratch[counts[((k.timestamp - low) >> shift) & (kBuckets - 1)]++] = k;
    keys.swap(scratch);
  }
}

bool decodeEvent(std::span<const uint8_t> body, const EventKey& key, Record& out,
                 std::string& problem) {
  const uint8_t* p = body.data() + key.offset;
  const uint8_t* const end = body.data() + body.size();
  uint8_t code = 0;
  const uint8_t* payload = nullptr;
  const uint8_t* payload_end = nullptr;
  readFraming(p, end, code, payload, payload_end);  // checked by indexChunk()
  auto visit = [&out, &key](auto&& record) {
    if constexpr (requires { record.timestamp; }) record.timestamp = key.timestamp;
    assign(out, std::move(record));
  };
  uint64_t timestamp = 0;
  const char* field_problem = nullptr;
  decodePayload(code, payload, payload_end, end, timestamp, visit, field_problem);
  if (field_problem == nullptr) [[likely]] {
    return true;
  }
  problem = recordProblem(code, key.offset, field_problem);
  return false;
}

}  // namespace memfloor::trace::detail
