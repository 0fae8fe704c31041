// A file descriptor closed when it goes out of scope, a pipe of two, and reading them to the end.
#pragma once

#include <functional>
#include <string_view>

namespace memfloor::common {

// Owns one open file descriptor (or none: -1) and closes it once.
class Fd {
 public:
  Fd() = default;
  explicit Fd(int fd) : fd_(fd) {}
  Fd(Fd&& other) noexcept : fd_(other.release()) {}
  Fd& operator=(Fd&& other) noexcept;
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd() { reset(); }

  int get() const { return fd_; }
  bool valid() const { return fd_ >= 0; }
  // Closes it (if open); it then holds none.
  void reset();
  // Hands the descriptor over without closing it.
  int release();

 private:
  int fd_ = -1;
};

// Both ends of a pipe, close-on-exec: a child started later holds only the end it was given.
struct Pipe {
  Fd read;
  Fd write;

  // Opens a new pipe in place of these ends; false (errno set) when none can be made.
  bool open();
};

// What one read returned, handed to the caller as it comes.
using ReadSink = std::function<void(std::string_view)>;

// Reads `first` and `second` (a descriptor < 0 is skipped) as data comes, each until its end, and
// hands what is read to `to_first` and `to_second`: a writer of both never stalls on a full pipe
// while the other is read. A read that fails (but for EINTR) ends its stream. Returns 0, or the
// errno of a poll that failed (reading stops there).
int readUntilEnd(int first, const ReadSink& to_first, int second = -1,
                 const ReadSink& to_second = {});

}  // namespace memfloor::common
