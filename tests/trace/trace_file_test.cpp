// Tests of trace/trace_file: text traces encoded record for record, binary traces read as they are.
#include "trace/trace_file.h"

#include <catch2/catch.hpp>
#include <sstream>

#include "common/error.h"
#include "trace/reader.h"

using namespace memfloor;

namespace {

std::vector<trace::Record> readAll(const trace::Source& source, trace::Ending& ending) {
  trace::FileOrderReader reader(source);
  std::vector<trace::Record> records;
  trace::Record record;
  while (reader.next(record)) records.push_back(record);
  ending = reader.end().ending;
  return records;
}

}  // namespace

TEST_CASE("a text trace encodes to the same records, trailer only when the text has one") {
  const std::string text =
      "string 1 \"iteration 1\"\n"
      "marker push t=5 thread=11 name=1\n"
      "alloc t=10 kind=device dev=0 addr=0x100 size=64\n"
      "free t=20 kind=device dev=0 addr=0x100 size=64\n"
      "marker pop t=30 thread=11\n";
  SECTION("without a trailer line the trace reads as truncated") {
    std::istringstream in(text);
    auto bytes = trace::encodeTextTrace(in, "fixture.txt");
    trace::MemorySource source(bytes);
    trace::Ending ending{};
    auto records = readAll(source, ending);
    REQUIRE(records.size() == 5);
    CHECK(std::get<trace::Alloc>(records[2]).address == 0x100);
    CHECK(ending == trace::Ending::kTruncated);
  }
  SECTION("with a trailer line it reads as complete") {
    std::istringstream in(text + "trailer records=5 end=40\n");
    auto bytes = trace::encodeTextTrace(in, "fixture.txt");
    trace::MemorySource source(bytes);
    trace::Ending ending{};
    auto records = readAll(source, ending);
    REQUIRE(records.size() == 6);
    CHECK(std::get<trace::Trailer>(records[5]).end_timestamp == 40);
    CHECK(ending == trace::Ending::kTrailer);
  }
}

TEST_CASE("a malformed text trace names the file and line") {
  std::istringstream in("string 1 \"x\"\nalloc t=oops\n");
  REQUIRE_THROWS_WITH(trace::encodeTextTrace(in, "bad.txt"), Catch::StartsWith("bad.txt:2:"));
}

TEST_CASE("a missing or empty trace file is refused with its path") {
  REQUIRE_THROWS_WITH(trace::TraceFile("/nonexistent/run.mftrace"),
                      Catch::Contains("/nonexistent/run.mftrace"));
}
