// Sinks for the writer: a file descriptor (retrying short writes and EINTR) and a memory buffer.
#include "trace/sink.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

#include "common/write_all.h"

namespace memfloor::trace {

constexpr mode_t kFileMode = 0644;

FileSink::~FileSink() {
  if (fd_ >= 0) ::close(fd_);
}

int FileSink::createExclusive(const char* path) {
  return ::open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, kFileMode);
}

bool FileSink::write(const void* data, size_t n) {
  if (fd_ < 0) return false;
  const int error = common::writeAll(fd_, data, n);
  if (error != 0) errno = error;  // for the caller's message
  return error == 0;
}

bool MemorySink::write(const void* data, size_t n) {
  const auto* p = static_cast<const uint8_t*>(data);
  bytes_.insert(bytes_.end(), p, p + n);
  return true;
}

}  // namespace memfloor::trace
