// Tests of common/progress: nothing drawn on a pipe, nor before the delay; on a stream that may be
// drawn on, the counter line redrawn in place, counts never moving back, and cleared at the end.
#include "common/progress.h"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <catch2/catch.hpp>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

namespace memfloor::common {
namespace {

using std::chrono::milliseconds;

// A pipe whose write end the progress line goes to; read() takes what was written so far.
struct Pipe {
  int fds[2] = {-1, -1};
  Pipe() { REQUIRE(::pipe2(fds, O_NONBLOCK) == 0); }
  ~Pipe() {
    ::close(fds[0]);
    ::close(fds[1]);
  }
  int out() const { return fds[1]; }
  std::string read() const {
    std::string text;
    char buffer[4096];
    for (ssize_t n; (n = ::read(fds[0], buffer, sizeof buffer)) > 0;) {
      text.append(buffer, static_cast<size_t>(n));
    }
    return text;
  }
};

// Drawn on any stream, at once and at every update.
Progress::Options always() {
  Progress::Options options;
  options.delay = milliseconds(0);
  options.interval = milliseconds(0);
  options.terminal_only = false;
  return options;
}

// What a Progress with `options` draws for the counts `done` of `total`, its finish() included.
std::string drawnFor(const Progress::Options& options, const std::vector<size_t>& done,
                     size_t total) {
  Pipe pipe;
  Progress progress("analyze", "traces", pipe.out(), options);
  for (size_t d : done) progress.update(d, total);
  progress.finish();
  return pipe.read();
}

TEST_CASE("Progress draws nothing where the stream is not a terminal", "[progress]") {
  Progress::Options options = always();
  options.terminal_only = true;
  CHECK(drawnFor(options, {1, 2}, 2).empty());
}

TEST_CASE("Progress draws nothing before the delay", "[progress]") {
  Progress::Options options = always();
  options.delay = milliseconds(60'000);
  CHECK(drawnFor(options, {1, 2}, 2).empty());
}

TEST_CASE("Progress redraws the line in place and clears it at the end", "[progress]") {
  Pipe pipe;
  Progress progress("analyze", "traces", pipe.out(), always());
  progress.update(9, 10);
  progress.update(7, 10);  // a slower worker's count: the line does not move back
  progress.update(10, 10);
  CHECK(pipe.read() == "\ranalyze: 9/10 traces\ranalyze: 9/10 traces\ranalyze: 10/10 traces");
  progress.finish();
  CHECK(pipe.read() == "\r" + std::string(21, ' ') + "\r");
  progress.update(10, 10);  // after the end: nothing
  progress.finish();
  CHECK(pipe.read().empty());
}

TEST_CASE("Progress redraws at most once an interval, but always the last count", "[progress]") {
  Progress::Options options = always();
  options.interval = milliseconds(60'000);
  CHECK(drawnFor(options, {1, 2, 3}, 3) ==
        "\ranalyze: 1/3 traces\ranalyze: 3/3 traces\r" + std::string(19, ' ') + "\r");
}

TEST_CASE("Progress takes updates from several threads at once", "[progress]") {
  Pipe pipe;
  Progress::Options options = always();
  options.interval = milliseconds(60'000);
  Progress progress("analyze", "traces", pipe.out(), options);
  constexpr size_t kThreads = 4;
  constexpr size_t kEach = 100;
  std::atomic<size_t> done{0};
  {
    std::vector<std::jthread> threads;
    for (size_t t = 0; t < kThreads; ++t) {
      threads.emplace_back([&] {
        for (size_t i = 0; i < kEach; ++i) progress.update(++done, kThreads * kEach);
      });
    }
  }
  const std::string drawn = pipe.read();
  CHECK_THAT(drawn,
             Catch::StartsWith("\ranalyze: ") && Catch::EndsWith("\ranalyze: 400/400 traces"));
}

}  // namespace
}  // namespace memfloor::common
