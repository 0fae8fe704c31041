// Tests of common/output_file: whole files or none, never through a link or over an input, and
// the messages that name the file.
#include "common/output_file.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include "common/error.h"
#include "tests/scratch_dir.h"

namespace memfloor::common {
namespace {

namespace fs = std::filesystem;
using Catch::Matchers::Contains;

struct TempDir : testing::ScratchDir {
  TempDir() : ScratchDir("output_file_test") {}
  // The names in the directory, "." files (temporaries) included.
  std::vector<std::string> names() const {
    std::vector<std::string> out;
    for (const auto& e : fs::directory_iterator(path)) out.push_back(e.path().filename().string());
    std::sort(out.begin(), out.end());
    return out;
  }
};

std::string read(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string failure(const std::function<void()>& write) {
  try {
    write();
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

TEST_CASE("an output is renamed into place whole, and leaves no temporary file") {
  TempDir dir;
  const std::string path = dir.file("report.json");
  std::string big(300000, 'x');  // past the stream's buffer
  {
    OutputFile out(path, "report");
    out.stream() << "{" << big;
    out.write("}");
    CHECK_FALSE(fs::exists(path));  // nothing at the target until the commit
    out.commit();
  }
  CHECK(read(path) == "{" + big + "}");
  CHECK(dir.names() == std::vector<std::string>{"report.json"});
}

TEST_CASE("an output not committed leaves the old file as it was") {
  TempDir dir;
  const std::string path = dir.write("report.json", "old");
  {
    OutputFile out(path, "report");
    out.write("new and partial");
  }
  CHECK(read(path) == "old");
  CHECK(dir.names() == std::vector<std::string>{"report.json"});
}

TEST_CASE("an output is never written through a symbolic link") {
  TempDir dir;
  const std::string victim = dir.write("victim", "keep");
  fs::create_symlink(victim, dir.path / "link");
  CHECK_THAT(failure([&] { writeOutputFile(dir.file("link"), "report", "x"); }),
             Contains("link: will not write the report through a symbolic link"));
  CHECK_THAT(failure([&] { appendOutputFile(dir.file("link"), "summary", "x"); }),
             Contains("link: will not write the summary through a symbolic link"));
  CHECK(read(victim) == "keep");
}

TEST_CASE("an output is never one of the command's inputs") {
  TempDir dir;
  const std::string input = dir.write("trace.mftrace", "trace");
  fs::create_hard_link(input, dir.path / "other-name");
  for (const std::string& target : {input, dir.file("other-name"), dir.file("./trace.mftrace")}) {
    CHECK_THAT(failure([&] { writeOutputFile(target, "text trace", "x", {input}); }),
               Contains("will not write the text trace over " + input));
  }
  CHECK(read(input) == "trace");
  writeOutputFile(dir.file("elsewhere"), "text trace", "x", {input, dir.path.string()});
  CHECK(read(dir.file("elsewhere")) == "x");
}

TEST_CASE("an output names what is wrong with its place") {
  TempDir dir;
  CHECK_THAT(failure([&] { writeOutputFile(dir.path.string(), "report", "x"); }),
             Contains(": cannot write the report: it is a directory"));
  CHECK_THAT(failure([&] { writeOutputFile(dir.file("missing/report.json"), "report", "x"); }),
             Contains("missing/report.json: cannot write the report: No such file or directory "
                      "(creating a file in "));
  CHECK_THAT(failure([&] { writeOutputFile("", "report", "x"); }),
             Contains("an empty path for the report"));
}

TEST_CASE("an overwritten output keeps its permissions") {
  TempDir dir;
  const std::string path = dir.write("baseline.json", "old");
  fs::permissions(path, fs::perms::owner_read | fs::perms::owner_write);
  writeOutputFile(path, "baseline", "new");
  CHECK(read(path) == "new");
  CHECK(fs::status(path).permissions() == (fs::perms::owner_read | fs::perms::owner_write));
}

TEST_CASE("a device is written in place, a pipe with no reader is an error and not a wait") {
  writeOutputFile("/dev/null", "export", "discarded");
  TempDir dir;
  const std::string fifo = dir.file("fifo");
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  CHECK_THAT(failure([&] { writeOutputFile(fifo, "export", "x"); }),
             Contains("fifo: cannot write the export: a pipe with no reader"));
  if (fs::exists("/dev/full")) {
    CHECK_THAT(failure([&] { writeOutputFile("/dev/full", "export", "x"); }),
               Contains("/dev/full: cannot write the export: No space left on device"));
  }
}

TEST_CASE("appending adds to the end of a file, and creates it when missing") {
  TempDir dir;
  const std::string path = dir.file("summary.md");
  appendOutputFile(path, "summary", "one\n");
  appendOutputFile(path, "summary", "two\n");
  CHECK(read(path) == "one\ntwo\n");
}

}  // namespace
}  // namespace memfloor::common
