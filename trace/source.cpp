// Byte sources for the readers: a file read with pread, or a span of memory.
#include "trace/source.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <utility>

#include "common/input_file.h"

namespace memfloor::trace {

FileSource::FileSource(std::string path)
    : path_(std::move(path)), file_(std::make_unique<common::InputFile>(path_, "trace")) {}

FileSource::~FileSource() = default;

uint64_t FileSource::size() const { return file_->size(); }

size_t FileSource::readAt(uint64_t offset, void* out, size_t n) const {
  auto* p = static_cast<uint8_t*>(out);
  size_t done = 0;
  while (done < n) {
    const ssize_t got = ::pread(file_->fd(), p + done, n - done, static_cast<off_t>(offset + done));
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) break;  // end of file or a read error: the reader sees a short read
    done += static_cast<size_t>(got);
  }
  return done;
}

MemorySource::MemorySource(std::span<const uint8_t> bytes, std::string name)
    : bytes_(bytes), name_(std::move(name)) {}

size_t MemorySource::readAt(uint64_t offset, void* out, size_t n) const {
  if (offset >= bytes_.size()) return 0;
  const size_t count = static_cast<size_t>(std::min<uint64_t>(n, bytes_.size() - offset));
  if (count > 0) std::memcpy(out, bytes_.data() + offset, count);
  return count;
}

}  // namespace memfloor::trace
