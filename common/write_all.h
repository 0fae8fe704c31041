// Writing all of a buffer to a file descriptor: short writes and EINTR retried. Header-only and
// free of every library, so the runtime hook's trace sink (trace/sink.cpp) shares it with the
// offline side's output files (common/output_file.cpp).
#pragma once

#include <unistd.h>

#include <cerrno>
#include <cstddef>

namespace memfloor::common {

// 0 when all n bytes were written, else the errno of the failure (EIO for a write that made no
// progress: giving up rather than spinning).
inline int writeAll(int fd, const void* data, size_t n) noexcept {
  const auto* p = static_cast<const char*>(data);
  while (n > 0) {
    const ssize_t written = ::write(fd, p, n);
    if (written < 0) {
      if (errno == EINTR) continue;
      return errno;
    }
    if (written == 0) return EIO;
    p += written;
    n -= static_cast<size_t>(written);
  }
  return 0;
}

}  // namespace memfloor::common
