// The hook's thread-safe trace file.
#include "runtime_hook/trace_output.h"

#include <utility>

namespace memfloor::hook {

TraceOutput::TraceOutput(std::unique_ptr<trace::Sink> sink, uint32_t chunk_bytes)
    : sink_(std::move(sink)), writer_(*sink_, chunk_bytes) {}

bool TraceOutput::begin() {
  std::lock_guard<std::mutex> lock(mutex_);
  open_ = writer_.begin();
  return open_;
}

template <class T>
bool TraceOutput::Batch::put(const T& record) {
  if (!out_.open_ || !out_.writer_.write(record)) {
    ++out_.dropped_;
    return false;
  }
  return true;
}

trace::StringId TraceOutput::Batch::intern(std::string_view text) {
  if (text.empty()) return trace::kNoId;
  auto it = out_.strings_.find(std::string(text));
  if (it != out_.strings_.end()) return it->second;
  if (!out_.open_) return trace::kNoId;
  trace::StringId id = out_.next_string_;
  if (!out_.writer_.writeString(id, text)) return trace::kNoId;
  ++out_.next_string_;
  out_.strings_.emplace(std::string(text), id);
  return id;
}

bool TraceOutput::Batch::write(const trace::Record& record) { return put(record); }
bool TraceOutput::Batch::write(const trace::Alloc& alloc) { return put(alloc); }
bool TraceOutput::Batch::write(const trace::Free& free) { return put(free); }
bool TraceOutput::Batch::write(const trace::Marker& marker) { return put(marker); }
bool TraceOutput::Batch::write(const trace::PoolEvent& pool) { return put(pool); }

bool TraceOutput::Batch::writeStack(trace::StackId id, const trace::FrameId* frames, size_t count) {
  return out_.open_ && out_.writer_.writeStack(id, frames, count);
}

bool TraceOutput::Batch::flush() { return out_.open_ && out_.writer_.flush(); }

bool TraceOutput::finish(uint64_t end_timestamp) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!open_) return false;
  open_ = false;
  bool ok = true;
  if (dropped_ > 0) {
    trace::Dropped dropped{trace::DropSource::kWriter, dropped_};
    ok = writer_.write(dropped);
  }
  return writer_.finish(end_timestamp) && ok;
}

bool TraceOutput::finished() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return !open_;
}

uint64_t TraceOutput::droppedCount() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return dropped_;
}

}  // namespace memfloor::hook
