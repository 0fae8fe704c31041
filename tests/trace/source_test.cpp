// Tests of trace/source.cpp: file and memory sources, and the errors for unreadable paths.
#include "trace/source.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "common/error.h"
#include "trace_test_util.h"

namespace memfloor::trace {
namespace {

TEST_CASE("FileSource reads at offsets", "[trace][source]") {
  const auto path = std::filesystem::temp_directory_path() /
                    ("memfloor_source_test_" + std::to_string(::getpid()));
  std::ofstream(path, std::ios::binary) << "0123456789";
  {
    FileSource source(path.string());
    CHECK(source.size() == 10);
    CHECK(source.name() == path.string());
    char buffer[8] = {};
    CHECK(source.readAt(3, buffer, 4) == 4);
    CHECK(std::string(buffer, 4) == "3456");
    CHECK(source.readAt(8, buffer, 8) == 2);
    CHECK(source.readAt(10, buffer, 8) == 0);
    CHECK(source.readAt(1000, buffer, 8) == 0);
  }
  std::filesystem::remove(path);
}

TEST_CASE("FileSource names the path when it cannot be read", "[trace][source]") {
  CHECK_THROWS_WITH(FileSource("/nonexistent/run.mftrace"),
                    "/nonexistent/run.mftrace: cannot open the trace: No such file or directory");
  CHECK_THROWS_WITH(FileSource(std::filesystem::temp_directory_path().string()),
                    Catch::Matchers::EndsWith(": cannot read the trace: a directory, not a "
                                              "regular file"));
  CHECK_THROWS_WITH(FileSource("/dev/null"),
                    "/dev/null: cannot read the trace: a device, not a regular file");
}

TEST_CASE("MemorySource", "[trace][source]") {
  const std::vector<uint8_t> bytes{1, 2, 3};
  MemorySource source(bytes, "label");
  CHECK(source.size() == 3);
  CHECK(source.name() == "label");
  uint8_t out[4] = {};
  CHECK(source.readAt(1, out, 4) == 2);
  CHECK(out[0] == 2);
  CHECK(out[1] == 3);
  CHECK(source.readAt(3, out, 1) == 0);
  MemorySource empty({});
  CHECK(empty.size() == 0);
  CHECK(empty.name() == "<memory>");
  CHECK(empty.readAt(0, out, 1) == 0);
}

}  // namespace
}  // namespace memfloor::trace
