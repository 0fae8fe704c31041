// The hook's one trace file: a trace::Writer behind a mutex, with interned strings, idempotent
// flush/finish and a count of what it could not write. Never throws; safe from any thread.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>

#include "trace/records.h"
#include "trace/sink.h"
#include "trace/writer.h"

namespace memfloor::hook {

class TraceOutput {
 public:
  TraceOutput(std::unique_ptr<trace::Sink> sink, uint32_t chunk_bytes);
  TraceOutput(const TraceOutput&) = delete;
  TraceOutput& operator=(const TraceOutput&) = delete;

  bool begin();  // the file header; false if the sink failed

  // Holds the lock for a batch of writes (one CUPTI buffer, say). While a Batch lives, use only
  // its methods, not the TraceOutput's own.
  class Batch {
   public:
    explicit Batch(TraceOutput& out) : out_(out), lock_(out.mutex_) {}
    trace::StringId intern(std::string_view text);  // writes the StringDef the first time
    bool write(const trace::Record& record);
    bool write(const trace::Alloc& alloc);
    bool write(const trace::Free& free);
    bool write(const trace::Marker& marker);
    bool write(const trace::PoolEvent& pool);
    bool writeStack(trace::StackId id, const trace::FrameId* frames, size_t count);
    bool flush();

   private:
    template <class T>
    bool put(const T& record);
    TraceOutput& out_;
    std::lock_guard<std::mutex> lock_;
  };

  trace::StringId intern(std::string_view text) { return Batch(*this).intern(text); }
  bool write(const trace::Record& record) { return Batch(*this).write(record); }
  bool write(const trace::Alloc& alloc) { return Batch(*this).write(alloc); }
  bool write(const trace::Free& free) { return Batch(*this).write(free); }
  bool flush() { return Batch(*this).flush(); }

  // Writes our own dropped count (if any), then the trailer. Later writes are counted as dropped
  // and return false. Idempotent; returns true if the file ended cleanly.
  bool finish(uint64_t end_timestamp);

  bool finished() const;
  uint64_t droppedCount() const;

 private:
  mutable std::mutex mutex_;
  std::unique_ptr<trace::Sink> sink_;
  trace::Writer writer_;
  std::unordered_map<std::string, trace::StringId> strings_;
  trace::StringId next_string_ = 1;
  uint64_t dropped_ = 0;  // records not written because the file was closed or failing
  bool open_ = false;     // begin() succeeded and finish() not yet called
};

}  // namespace memfloor::hook
