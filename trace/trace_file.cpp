// TraceFile: a trace file opened for the readers, binary or text form.
#include "trace/trace_file.h"

#include <fmt/core.h>

#include <fstream>

#include "common/error.h"
#include "trace/reader.h"
#include "trace/sink.h"
#include "trace/text.h"

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
  if (!(ok && writer.flush())) throw Error(fmt::format("{}: cannot encode the trace", name));
  return sink.bytes();
}

TraceFile::TraceFile(const std::string& path) {
  auto file = std::make_unique<FileSource>(path);
  if (file->size() == 0) throw Error(fmt::format("{}: empty file", path));
  if (looksLikeBinaryTrace(*file) || !path.ends_with(".txt")) {
    source_ = std::move(file);  // the reader explains what is wrong with a non-trace
    return;
  }
  std::ifstream in(path);
  if (!in) throw Error(fmt::format("{}: cannot open", path));
  encoded_ = encodeTextTrace(in, path);
  source_ = std::make_unique<MemorySource>(encoded_, path);
}

}  // namespace memfloor::trace
