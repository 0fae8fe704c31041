// Tests of trace/trace_file: text traces encoded record for record, binary traces read as they are.
#include "trace/trace_file.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "common/error.h"
#include "trace_test_util.h"

namespace memfloor::trace {
namespace {

using testing::Bytes;
using testing::readAll;

const std::string kText =
    "string 1 \"iteration 1\"\n"
    "marker push t=5 thread=11 name=1\n"
    "alloc t=10 kind=device dev=0 addr=0x100 size=64\n"
    "free t=20 kind=device dev=0 addr=0x100 size=64\n"
    "marker pop t=30 thread=11\n";

Bytes encode(const std::string& text, uint32_t chunk_bytes = Writer::kDefaultChunkBytes) {
  std::istringstream in(text);
  return encodeTextTrace(in, "fixture.txt", chunk_bytes);
}

TEST_CASE("a text trace encodes to the same records, trailer only when the text has one",
          "[trace][trace_file]") {
  TraceEnd end;
  SECTION("without a trailer line the trace reads as truncated") {
    auto records = readAll<FileOrderReader>(encode(kText), &end);
    REQUIRE(records.size() == 5);
    CHECK(std::get<Alloc>(records[2]).address == 0x100);
    CHECK(end.ending == Ending::kTruncated);
  }
  SECTION("with a trailer line it reads as complete") {
    auto records = readAll<FileOrderReader>(encode(kText + "trailer records=5 end=40\n"), &end);
    REQUIRE(records.size() == 6);
    CHECK(std::get<Trailer>(records[5]).end_timestamp == 40);
    CHECK(end.ending == Ending::kTrailer);
  }
}

TEST_CASE("small chunks hold the same records in more chunks", "[trace][trace_file]") {
  std::string text = kText;
  for (int i = 0; i < 40; ++i) {
    text += "alloc t=" + std::to_string(100 + i) +
            " kind=device dev=0 addr=" + std::to_string(0x1000 * (i + 1)) + " size=64\n";
  }
  text += "trailer records=45 end=200\n";
  const Bytes one = encode(text);
  const Bytes many = encode(text, 64);
  CHECK(testing::chunkSpans(one).size() == 2);  // the records, then the trailer alone
  CHECK(testing::chunkSpans(many).size() > 2);
  CHECK(readAll<FileOrderReader>(many) == readAll<FileOrderReader>(one));
}

TEST_CASE("a malformed text trace names the file and line", "[trace][trace_file]") {
  REQUIRE_THROWS_WITH(encode("string 1 \"x\"\nalloc t=oops\n"),
                      Catch::StartsWith("fixture.txt:2:"));
}

TEST_CASE("TraceFile reads a binary trace in place and encodes a text one", "[trace][trace_file]") {
  namespace fs = std::filesystem;
  const fs::path dir =
      fs::temp_directory_path() / ("memfloor_trace_file_test_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const Bytes bytes = encode(kText);
  std::ofstream(dir / "run.mftrace", std::ios::binary)
      .write(reinterpret_cast<const char*>(bytes.data()),
             static_cast<std::streamsize>(bytes.size()));
  std::ofstream(dir / "run.txt") << kText;
  std::ofstream(dir / "empty.mftrace");
  {
    const TraceFile binary((dir / "run.mftrace").string());
    const TraceFile text((dir / "run.txt").string());
    CHECK_FALSE(binary.wasText());
    CHECK(text.wasText());
    CHECK(text.source().name() == (dir / "run.txt").string());
    CHECK(testing::readFile((dir / "run.mftrace").string()) == bytes);
    FileOrderReader from_binary(binary.source()), from_text(text.source());
    Record a, b;
    size_t count = 0;
    while (from_binary.next(a)) {
      REQUIRE(from_text.next(b));
      CHECK(a == b);
      ++count;
    }
    CHECK_FALSE(from_text.next(b));
    CHECK(count == 5);
    CHECK_THROWS_WITH(TraceFile((dir / "empty.mftrace").string()), Catch::Contains("empty file"));
  }
  fs::remove_all(dir);
}

TEST_CASE("a missing trace file is refused with its path", "[trace][trace_file]") {
  REQUIRE_THROWS_WITH(TraceFile("/nonexistent/run.mftrace"),
                      Catch::Contains("/nonexistent/run.mftrace"));
}

}  // namespace
}  // namespace memfloor::trace
