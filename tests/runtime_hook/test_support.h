// Helpers shared by the runtime_hook tests: an in-memory sink, reading it back, a fake environment.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "trace/reader.h"
#include "trace/sink.h"
#include "trace/source.h"

namespace memfloor::hook::test {

// Appends to a vector the test owns, so the bytes outlive the TraceOutput that wrote them.
class SharedSink final : public trace::Sink {
 public:
  explicit SharedSink(std::vector<uint8_t>& bytes) : bytes_(bytes) {}
  bool write(const void* data, size_t n) override {
    const auto* p = static_cast<const uint8_t*>(data);
    bytes_.insert(bytes_.end(), p, p + n);
    return true;
  }

 private:
  std::vector<uint8_t>& bytes_;
};

// Every record of a trace in memory, in file order; `ending` says how it ended.
inline std::vector<trace::Record> readAll(const std::vector<uint8_t>& bytes,
                                          trace::Ending& ending) {
  trace::MemorySource source(bytes);
  trace::FileOrderReader reader(source);
  std::vector<trace::Record> records;
  trace::Record r;
  while (reader.next(r)) records.push_back(r);
  ending = reader.end().ending;
  return records;
}

// An environment for readConfig/readProcessFacts: pass lookup and &env.
using Env = std::map<std::string, std::string>;
inline const char* lookup(const char* name, void* context) {
  auto* env = static_cast<Env*>(context);
  auto it = env->find(name);
  return it == env->end() ? nullptr : it->second.c_str();
}

}  // namespace memfloor::hook::test
