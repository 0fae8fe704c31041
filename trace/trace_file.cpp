// TraceFile: a trace file opened for the readers, binary or text form.
#include "trace/trace_file.h"

#include <fmt/core.h>

#include "common/error.h"
#include "common/input_file.h"
#include "common/pickle.h"
#include "trace/reader.h"
#include "trace/sink.h"
#include "trace/text.h"
#include "trace/torch_snapshot_reader.h"

namespace memfloor::trace {

std::vector<uint8_t> encodeTextTrace(std::istream& in, const std::string& name,
                                     uint32_t chunk_bytes) {
  TextReader text(in, name);
  MemorySink sink;
  Writer writer(sink, chunk_bytes);
  Record record;
  bool ok = writer.begin();
  while (ok && text.next(record)) {
    if (std::holds_alternative<Trailer>(record)) {
      ok = writer.flush() && writer.write(record) && writer.flush();  // alone in the last chunk
    } else {
      ok = writer.write(record);
    }
  }
  if (!ok) {
    // The memory sink takes every byte: a record the writer refused is larger than a chunk.
    throw Error(
        fmt::format("{}:{}: the record does not fit in a trace chunk of {} bytes (a string, "
                    "stack or command line this long cannot be encoded)",
                    name, text.line(), chunk_bytes));
  }
  if (!writer.flush()) throw Error(fmt::format("{}: cannot encode the trace", name));
  return sink.bytes();
}

std::vector<uint8_t> encodeTextTraceFile(const std::string& path) {
  common::InputFile file(path, "text trace");
  std::vector<uint8_t> bytes = encodeTextTrace(file.stream(kMaxTextTraceBytes), path);
  file.checkStream();
  return bytes;
}

TraceFile::TraceFile(const std::string& path) {
  auto file = std::make_unique<FileSource>(path);
  if (file->size() == 0) throw Error(fmt::format("{}: empty file", path));
  uint8_t head[2] = {};
  const size_t got = file->readAt(0, head, sizeof head);
  const bool pickle = common::looksLikePickle(std::span<const uint8_t>(head, got));
  if (pickle || path.ends_with(".json")) {
    encoded_ = encodeTorchSnapshotFile(path, pickle);
  } else if (looksLikeBinaryTrace(*file) || !path.ends_with(".txt")) {
    source_ = std::move(file);  // the reader explains what is wrong with a non-trace
    return;
  } else {
    encoded_ = encodeTextTraceFile(path);
  }
  source_ = std::make_unique<MemorySource>(encoded_, path);
}

}  // namespace memfloor::trace
