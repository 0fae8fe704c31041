// Tests of common/input_file: what it refuses (without waiting on a pipe) and the limits of what it
// reads, whole or as a stream.
#include "common/input_file.h"

#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <string>

#include "common/error.h"
#include "tests/scratch_dir.h"

namespace memfloor::common {
namespace {

namespace fs = std::filesystem;

struct TempDir : testing::ScratchDir {
  TempDir() : ScratchDir("input_file_test") {}
};

TEST_CASE("input_file: a regular file is read whole, within the limit") {
  TempDir dir;
  const std::string path = dir.write("a.txt", "0123456789");
  InputFile file(path, "sample");
  CHECK(file.size() == 10);
  CHECK(file.readAll(10) == "0123456789");
  CHECK_THROWS_WITH(InputFile(path, "sample").readAll(9),
                    path +
                        ": the sample is too large: 10 bytes, more than the 9 bytes memfloor "
                        "reads");
}

TEST_CASE("input_file: pipes, devices and directories are refused, naming what they are") {
  TempDir dir;
  const std::string fifo = (dir.path / "fifo").string();
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  // No writer: a blocking open would wait here for ever.
  CHECK_THROWS_WITH(InputFile(fifo, "sample"),
                    fifo + ": cannot read the sample: a pipe, not a regular file");
  CHECK_THROWS_WITH(InputFile("/dev/zero", "sample"),
                    "/dev/zero: cannot read the sample: a device, not a regular file");
  CHECK_THROWS_WITH(
      InputFile(dir.path.string(), "sample"),
      dir.path.string() + ": cannot read the sample: a directory, not a regular file");
  CHECK_THROWS_WITH(InputFile((dir.path / "missing").string(), "sample"),
                    Catch::Matchers::EndsWith("missing: cannot open the sample: No such file or "
                                              "directory"));
}

TEST_CASE(
    "input_file: the stream ends at the end of the file, and says when it went past the "
    "limit") {
  TempDir dir;
  const std::string path = dir.write("lines.txt", "one\ntwo\nthree\n");
  {
    InputFile file(path, "sample");
    std::istream& in = file.stream(100);
    std::string line, all;
    while (std::getline(in, line)) all += line + ";";
    CHECK(all == "one;two;three;");
    CHECK_NOTHROW(file.checkStream());
  }
  {
    InputFile file(path, "sample");
    CHECK_THROWS_WITH(file.stream(4), Catch::Matchers::Contains("the sample is too large: 14"));
  }
  {
    // The file grows after it was opened: the stream stops at the limit, and checkStream says so.
    InputFile file(path, "sample");
    std::istream& in = file.stream(14);
    std::ofstream(path, std::ios::app) << "four\n";
    std::string line, all;
    while (std::getline(in, line)) all += line + ";";
    CHECK(all == "one;two;three;");
    CHECK_THROWS_WITH(file.checkStream(),
                      path + ": the sample is too large: more than the 14 bytes memfloor reads");
  }
}

}  // namespace
}  // namespace memfloor::common
