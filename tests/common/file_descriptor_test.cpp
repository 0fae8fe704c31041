// Tests of common/file_descriptor: a descriptor closed once, pipes closed on exec, and two pipes
// read to their ends without a stall however much the writer writes to either.
#include "common/file_descriptor.h"

#include <fcntl.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <string>
#include <thread>

#include "common/write_all.h"

namespace memfloor::common {
namespace {

bool isOpen(int fd) { return ::fcntl(fd, F_GETFD) >= 0; }

TEST_CASE("An Fd closes its descriptor once, unless released", "[file_descriptor]") {
  Pipe pipe;
  REQUIRE(pipe.open());
  const int read_end = pipe.read.get();
  CHECK((::fcntl(read_end, F_GETFD) & FD_CLOEXEC) != 0);  // a child gets only the end it is given
  Fd moved(std::move(pipe.read));
  CHECK_FALSE(pipe.read.valid());
  CHECK(moved.get() == read_end);
  moved.reset();
  CHECK_FALSE(isOpen(read_end));
  moved.reset();  // twice is once

  const int write_end = pipe.write.release();
  CHECK_FALSE(pipe.write.valid());
  CHECK(isOpen(write_end));
  { Fd owner(write_end); }
  CHECK_FALSE(isOpen(write_end));
}

TEST_CASE("Two pipes are read as data comes, each to its end", "[file_descriptor]") {
  // More than a pipe holds (64 KiB): a reader of the first alone would never see the second drain.
  const std::string large(std::size_t{1} << 20, 'x');
  Pipe first;
  Pipe second;
  REQUIRE(first.open());
  REQUIRE(second.open());
  std::thread writer([&] {
    CHECK(writeAll(second.write.get(), large.data(), large.size()) == 0);
    CHECK(writeAll(first.write.get(), "end", 3) == 0);
    first.write.reset();
    second.write.reset();
  });
  std::string a;
  std::string b;
  const int error = readUntilEnd(
      first.read.get(), [&](std::string_view data) { a += data; }, second.read.get(),
      [&](std::string_view data) { b += data; });
  writer.join();
  CHECK(error == 0);
  CHECK(a == "end");
  CHECK(b == large);
}

TEST_CASE("A descriptor below 0 is skipped, and a stream may be read to no sink",
          "[file_descriptor]") {
  Pipe pipe;
  REQUIRE(pipe.open());
  REQUIRE(writeAll(pipe.write.get(), "dropped", 7) == 0);
  pipe.write.reset();
  CHECK(readUntilEnd(-1, {}, pipe.read.get(), {}) == 0);
  CHECK(readUntilEnd(-1, {}) == 0);
}

}  // namespace
}  // namespace memfloor::common
