// Encodes records into checksummed chunks (format.h). Usable from the hook: no exceptions, no
// allocation after construction beyond its chunk buffer, bool results that chain with &&.
//
//   Writer w(sink);  w.begin() && w.writeString(1, "iteration") && w.write(alloc) && w.finish(t);
//
//   file:  | file header | chunk | chunk | ... | chunk holding only the trailer |
//   chunk: | chunk header | body |
//   body:  | type u8 | varint length | payload | type u8 | ...
//
// The headers' and the packed payload's fields are drawn, with their offsets, in trace/format.h.
//
// Allocations and frees are written packed (format 1.1) unless the writer is built with
// Encoding::kVarint: fixed-width fields plus a one-byte memory context index; the context (kind,
// device, stream, thread, flags) is defined by a context record the first time it is used in the
// chunk. Contexts live in a 256-entry table indexed by a hash of their fields, so finding one is a
// compare, and a collision just redefines the entry. An event whose timestamp delta does not fit
// 32 bits is written in the varint form.
//
// Records are appended to one buffer holding the chunk header and body; when the next record does
// not fit, the chunk is sealed (header filled in, checksum computed) and handed to the sink in one
// write. A record that cannot fit even an empty chunk (a huge string or stack) is refused: the call
// returns false but the writer stays usable (failed() stays false). Not thread-safe: callers that
// write from several threads serialize the calls.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>

#include "trace/format.h"
#include "trace/records.h"
#include "trace/sink.h"

namespace memfloor::trace {

class Writer {
 public:
  static constexpr uint32_t kDefaultChunkBytes = 1u << 20;
  static constexpr uint32_t kMinChunkBytes = 256;

  // chunk_bytes: a chunk is sealed once its body reaches this size (clamped to
  // [kMinChunkBytes, kMaxChunkBody]). Allocates the chunk buffer (nothrow: on failure every call
  // fails).
  enum class Encoding : uint8_t {
    kPacked,  // alloc/free as packed records with memory contexts (format 1.1, the default)
    kVarint,  // alloc/free as varint records only, as format 1.0 wrote them
  };
  explicit Writer(Sink& sink, uint32_t chunk_bytes = kDefaultChunkBytes,
                  Encoding encoding = Encoding::kPacked);
  ~Writer();
  Writer(const Writer&) = delete;
  Writer& operator=(const Writer&) = delete;

  bool begin();  // the file header; call once, first

  // Each returns false when the record is invalid (a definition with id 0, an enum out of range;
  // a memory kind out of range is written as kUnknown instead), does not fit a chunk, the sink
  // failed, or begin() was not called / the trailer was already written.
  bool write(const Record& record);
  bool write(const Alloc& alloc);
  bool write(const Free& free);
  bool write(const Marker& marker);
  bool write(const PoolEvent& pool);
  bool write(const Census& census);
  bool write(const Held& held);
  bool write(const Step& step);
  bool write(const Dropped& dropped);
  bool write(const StringDef& string);
  bool write(const ModuleDef& module);
  bool write(const FrameDef& frame);
  bool write(const StackDef& stack);
  bool write(const ProcessInfo& process);
  bool write(const DeviceInfo& device);
  bool write(const Property& property);
  // Seals the current chunk and writes the trailer alone in a final chunk, as given (to copy a
  // trace); no record can be written after it. finish() is the usual way to end a trace.
  bool write(const Trailer& trailer);
  bool writeString(StringId id, std::string_view text);
  bool writeStack(StackId id, const FrameId* frames, size_t count);

  bool flush();                         // seals the current chunk (no-op when empty)
  bool finish(uint64_t end_timestamp);  // flush + a final chunk holding only the trailer

  uint64_t recordCount() const { return records_; }
  bool failed() const { return failed_; }  // a write to the sink failed; every later call fails

 private:
  struct Fields;
  bool usable() const { return !failed_ && began_ && !finished_ && buffer_; }
  bool append(uint8_t code, const Fields& fields);
  bool appendTimed(uint8_t code, uint64_t timestamp, const Fields& fields);
  bool writeMemoryEvent(uint8_t code, const MemoryEvent& event);
  bool writePacked(uint8_t code, const MemoryEvent& event);
  uint8_t* reserve(uint8_t code, size_t payload_size);  // room for one record, or nullptr
  void commit(uint8_t* end);

  Sink& sink_;
  uint32_t chunk_bytes_;
  std::unique_ptr<uint8_t[]> buffer_;  // chunk header + up to chunk_bytes_ of body
  uint32_t body_size_ = 0;
  uint32_t chunk_records_ = 0;
  uint64_t min_timestamp_ = UINT64_MAX;
  uint64_t max_timestamp_ = 0;
  uint64_t previous_timestamp_ = 0;  // delta base: the chunk's previous timed record, or 0
  uint64_t records_ = 0;
  // The chunk's memory contexts (packed encoding): entry i holds context index i's fields.
  struct Context {
    uint64_t thread;
    uint32_t device;
    uint32_t stream;
    uint8_t kind;
    uint8_t flags;
    bool operator==(const Context&) const = default;
  };
  Context contexts_[kMemoryContexts] = {};
  bool context_defined_[kMemoryContexts] = {};
  bool any_context_ = false;
  Encoding encoding_;
  bool began_ = false;
  bool finished_ = false;
  bool failed_ = false;
};

}  // namespace memfloor::trace
