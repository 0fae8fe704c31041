// The hook's trace output under concurrent use: every record from every thread arrives once.
#include "runtime_hook/trace_output.h"

#include <catch2/catch.hpp>
#include <set>
#include <thread>
#include <vector>

#include "tests/runtime_hook/test_support.h"
#include "trace/reader.h"
#include "trace/source.h"

using namespace memfloor;
using hook::test::readAll;
using hook::test::SharedSink;

namespace {

class FailingSink final : public trace::Sink {
 public:
  bool write(const void*, size_t) override { return false; }
};

}  // namespace

TEST_CASE("eight threads writing at once lose no record", "[runtime_hook]") {
  constexpr int kThreads = 8;
  constexpr int kPerThread = 20000;
  std::vector<uint8_t> bytes;
  {
    hook::TraceOutput out(std::make_unique<SharedSink>(bytes), 4096);  // small chunks: many seals
    REQUIRE(out.begin());
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&out, t] {
        for (int i = 0; i < kPerThread; ++i) {
          trace::Alloc a;
          a.timestamp = static_cast<uint64_t>(i) * 10 + static_cast<uint64_t>(t);
          a.address = (static_cast<uint64_t>(t) << 32) | static_cast<uint64_t>(i);
          a.size = 256;
          a.thread = static_cast<uint64_t>(t) + 1;
          if (i % 3 == 0) {
            hook::TraceOutput::Batch batch(out);  // batches interleave with single writes
            batch.write(a);
            trace::Free f;
            static_cast<trace::MemoryEvent&>(f) = a;
            f.timestamp += 5;
            batch.write(f);
          } else {
            out.write(a);
          }
          if (i % 1000 == 0) out.intern("thread " + std::to_string(t));
          if (i % 5000 == 0) out.flush();
        }
      });
    }
    for (std::thread& th : threads) th.join();
    CHECK(out.droppedCount() == 0);
    CHECK(out.finish(1u << 30));
    CHECK(out.finished());
  }
  trace::Ending ending{};
  std::vector<trace::Record> records = readAll(bytes, ending);
  CHECK(ending == trace::Ending::kTrailer);
  std::set<uint64_t> allocs;
  size_t frees = 0;
  std::set<std::string> strings;
  for (const trace::Record& r : records) {
    if (auto* a = std::get_if<trace::Alloc>(&r)) CHECK(allocs.insert(a->address).second);
    if (std::holds_alternative<trace::Free>(r)) ++frees;
    if (auto* s = std::get_if<trace::StringDef>(&r)) CHECK(strings.insert(s->text).second);
  }
  CHECK(allocs.size() == kThreads * kPerThread);
  CHECK(frees == kThreads * ((kPerThread + 2) / 3));
  CHECK(strings.size() == kThreads);  // interned once each
}

TEST_CASE("strings are interned once and finish is idempotent", "[runtime_hook]") {
  std::vector<uint8_t> bytes;
  hook::TraceOutput out(std::make_unique<SharedSink>(bytes), 1 << 16);
  REQUIRE(out.begin());
  trace::StringId a = out.intern("iteration");
  CHECK(a != trace::kNoId);
  CHECK(out.intern("iteration") == a);
  CHECK(out.intern("") == trace::kNoId);
  CHECK(out.intern("other") != a);
  CHECK(out.finish(10));
  CHECK_FALSE(out.finish(20));

  // After finish, writes are refused and counted, never appended after the trailer.
  trace::Alloc late;
  CHECK_FALSE(out.write(late));
  CHECK(out.droppedCount() == 1);
  trace::Ending ending{};
  std::vector<trace::Record> records = readAll(bytes, ending);
  CHECK(ending == trace::Ending::kTrailer);
  CHECK(std::holds_alternative<trace::Trailer>(records.back()));
}

TEST_CASE("a failing sink never throws and counts what it could not write", "[runtime_hook]") {
  hook::TraceOutput out(std::make_unique<FailingSink>(), 4096);
  CHECK_FALSE(out.begin());
  trace::Alloc a;
  CHECK_FALSE(out.write(a));
  CHECK(out.droppedCount() == 1);
  CHECK_FALSE(out.finish(1));
}
