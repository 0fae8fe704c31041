// Tests of trace/reader.cpp: the file header checks, trace sniffing and describe().
#include "trace/reader.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "common/error.h"
#include "trace_test_util.h"

namespace memfloor::trace {
namespace {

using testing::Bytes;

template <typename Reader>
void checkHeaderErrors() {
  auto open = [](const Bytes& bytes) {
    MemorySource source(bytes, "run.mftrace");
    Reader reader(source);
  };
  CHECK_THROWS_WITH(open({}), "run.mftrace: empty file");
  CHECK_THROWS_WITH(
      open({'h', 'e', 'l', 'l', 'o', ' ', 'w', 'o', 'r', 'l', 'd', '!', '!', '!', '!', '!', '!'}),
      "run.mftrace: not a memfloor trace (bad magic)");
  CHECK_THROWS_WITH(open({'M', 'F'}), "run.mftrace: not a memfloor trace (bad magic)");
  Bytes short_header = testing::fileHeader();
  short_header.resize(12);
  CHECK_THROWS_WITH(
      open(short_header),
      "run.mftrace: not a memfloor trace (12 bytes, shorter than the 16-byte header)");
  CHECK_THROWS_WITH(open(testing::fileHeader(2, 0)),
                    "run.mftrace: trace major version 2 is newer than this memfloor reads (1)");
  CHECK_THROWS_WITH(open(testing::fileHeader(0, 0)),
                    "run.mftrace: trace major version 0 is not supported");
  CHECK_NOTHROW(open(testing::fileHeader(1, 7)));  // a newer minor reads
}

TEST_CASE("bad headers throw one line naming the file", "[trace][reader]") {
  checkHeaderErrors<FileOrderReader>();
  checkHeaderErrors<TimeOrderReader>();
}

TEST_CASE("a file with a bad header, read from disk", "[trace][reader]") {
  const auto path = std::filesystem::temp_directory_path() /
                    ("memfloor_reader_test_" + std::to_string(::getpid()) + ".txt");
  std::ofstream(path) << "alloc t=1\n";
  FileSource source(path.string());
  CHECK_FALSE(looksLikeBinaryTrace(source));
  CHECK_THROWS_WITH(FileOrderReader(source), path.string() + ": not a memfloor trace (bad magic)");
  std::filesystem::remove(path);
}

TEST_CASE("versions and sniffing", "[trace][reader]") {
  const Bytes bytes = testing::concat({testing::fileHeader(1, 3)});
  MemorySource source(bytes);
  CHECK(looksLikeBinaryTrace(source));
  FileOrderReader reader(source);
  CHECK(reader.major() == 1);
  CHECK(reader.minor() == 3);
  TimeOrderReader time_reader(source);
  CHECK(time_reader.minor() == 3);
  const Bytes tiny{'M', 'F', 'T'};
  CHECK_FALSE(looksLikeBinaryTrace(MemorySource(tiny)));
}

TEST_CASE("describe says how a trace ended", "[trace][reader]") {
  CHECK(describe(TraceEnd{}) == "complete (trailer present)");
  CHECK(describe(TraceEnd{Ending::kTruncated, 4096, "chunk body of 12 bytes, 3 present", 1, 2}) ==
        "truncated at offset 4096: chunk body of 12 bytes, 3 present");
  CHECK(describe(TraceEnd{Ending::kCorrupt, 8192, "checksum mismatch", 1, 2}) ==
        "corrupt chunk at offset 8192: checksum mismatch");
}

}  // namespace
}  // namespace memfloor::trace
