// Tests of trace/sink.cpp: exclusive creation, file writes, memory writes.
#include "trace/sink.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <filesystem>
#include <fstream>

#include "trace_test_util.h"

namespace memfloor::trace {
namespace {

std::filesystem::path scratchDir(const char* name) {
  auto dir = std::filesystem::temp_directory_path() /
             (std::string("memfloor_sink_test_") + name + "_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

TEST_CASE("FileSink writes everything and closes its descriptor", "[trace][sink]") {
  const auto dir = scratchDir("write");
  const auto path = dir / "out.bin";
  std::string data(100000, 'z');
  {
    const int fd = FileSink::createExclusive(path.c_str());
    REQUIRE(fd >= 0);
    FileSink sink(fd);
    CHECK(sink.fd() == fd);
    CHECK(sink.write(data.data(), data.size()));
    CHECK(sink.write("ab", 2));
  }
  const testing::Bytes back = testing::readFile(path.string());
  CHECK(std::string(back.begin(), back.end()) == data + "ab");
  std::filesystem::remove_all(dir);
}

TEST_CASE("createExclusive never overwrites nor follows a symlink", "[trace][sink]") {
  const auto dir = scratchDir("exclusive");
  const auto existing = dir / "existing";
  std::ofstream(existing) << "keep";
  CHECK(FileSink::createExclusive(existing.c_str()) == -1);
  CHECK(errno == EEXIST);
  const auto link = dir / "link";
  std::filesystem::create_symlink(dir / "target", link);
  CHECK(FileSink::createExclusive(link.c_str()) == -1);
  CHECK_FALSE(std::filesystem::exists(dir / "target"));
  std::filesystem::remove_all(dir);
}

TEST_CASE("FileSink on a bad descriptor fails", "[trace][sink]") {
  FileSink sink(-1);
  CHECK_FALSE(sink.write("x", 1));
  int fds[2];
  REQUIRE(::pipe(fds) == 0);
  ::close(fds[0]);  // the reader is gone: EPIPE (SIGPIPE is ignored below)
  ::signal(SIGPIPE, SIG_IGN);
  FileSink pipe_sink(fds[1]);
  CHECK_FALSE(pipe_sink.write("x", 1));
}

TEST_CASE("MemorySink appends", "[trace][sink]") {
  MemorySink sink;
  CHECK(sink.write("ab", 2));
  CHECK(sink.write("c", 1));
  CHECK(sink.bytes() == std::vector<uint8_t>{'a', 'b', 'c'});
}

}  // namespace
}  // namespace memfloor::trace
