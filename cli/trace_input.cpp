// Opens a trace given on the command line, binary or text.
#include "cli/trace_input.h"

#include <fmt/core.h>

#include <fstream>

#include "common/error.h"
#include "trace/reader.h"
#include "trace/sink.h"
#include "trace/text.h"
#include "trace/writer.h"

namespace memfloor::cli {

std::vector<uint8_t> encodeTextTrace(std::istream& in, const std::string& name) {
  trace::TextReader text(in, name);
  trace::MemorySink sink;
  trace::Writer writer(sink);
  trace::Record record;
  bool ok = writer.begin();
  while (ok && text.next(record)) {
    if (std::holds_alternative<trace::Trailer>(record)) {
      ok = writer.flush() && writer.write(record) && writer.flush();  // alone in the last chunk
    } else {
      ok = writer.write(record);
    }
  }
  if (!(ok && writer.flush())) throw Error(fmt::format("{}: cannot encode the trace", name));
  return sink.bytes();
}

TraceInputFile::TraceInputFile(const std::string& path) {
  auto file = std::make_unique<trace::FileSource>(path);
  if (file->size() == 0) throw Error(fmt::format("{}: empty file", path));
  if (trace::looksLikeBinaryTrace(*file) || !path.ends_with(".txt")) {
    source_ = std::move(file);  // the reader explains what is wrong with a non-trace
    return;
  }
  std::ifstream in(path);
  if (!in) throw Error(fmt::format("{}: cannot open", path));
  encoded_ = encodeTextTrace(in, path);
  source_ = std::make_unique<trace::MemorySource>(encoded_, path);
}

}  // namespace memfloor::cli
