// Fd and Pipe, and the poll loop that reads up to two descriptors until both end.
#include "common/file_descriptor.h"

#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstddef>
#include <vector>

namespace memfloor::common {
namespace {

constexpr std::size_t kReadChunk = std::size_t{64} << 10;

}  // namespace

Fd& Fd::operator=(Fd&& other) noexcept {
  if (this != &other) {
    reset();
    fd_ = other.release();
  }
  return *this;
}

void Fd::reset() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

int Fd::release() {
  const int fd = fd_;
  fd_ = -1;
  return fd;
}

bool Pipe::open() {
  std::array<int, 2> fds{};
  if (::pipe2(fds.data(), O_CLOEXEC) != 0) return false;
  read = Fd(fds[0]);
  write = Fd(fds[1]);
  return true;
}

int readUntilEnd(int first, const ReadSink& to_first, int second, const ReadSink& to_second) {
  std::array<pollfd, 2> fds{pollfd{first, POLLIN, 0}, pollfd{second, POLLIN, 0}};
  const std::array<const ReadSink*, 2> sinks{&to_first, &to_second};
  std::vector<char> buffer(kReadChunk);
  while (fds[0].fd >= 0 || fds[1].fd >= 0) {
    if (::poll(fds.data(), fds.size(), -1) < 0) {
      if (errno == EINTR) continue;
      return errno;
    }
    for (std::size_t i = 0; i < fds.size(); ++i) {
      if (fds[i].fd < 0 || fds[i].revents == 0) continue;
      const ssize_t n = ::read(fds[i].fd, buffer.data(), buffer.size());
      if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
      if (n <= 0) {
        fds[i].fd = -1;  // poll skips negative descriptors; the caller closes its own
        continue;
      }
      if (*sinks[i]) (*sinks[i])(std::string_view(buffer.data(), static_cast<std::size_t>(n)));
    }
  }
  return 0;
}

}  // namespace memfloor::common
