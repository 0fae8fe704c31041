// InputFile: open without blocking, check the type on the descriptor, read within a limit.
#include "common/input_file.h"

#include <fcntl.h>
#include <fmt/core.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <streambuf>
#include <utility>

#include "common/error.h"

namespace memfloor::common {

std::string_view fileType(unsigned mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a pipe";
  if (S_ISSOCK(mode)) return "a socket";
  if (S_ISCHR(mode) || S_ISBLK(mode)) return "a device";
  return "not a regular file";
}

// A read-only stream buffer over the descriptor that stops after a limit.
class InputFile::Buffer final : public std::streambuf {
 public:
  Buffer(int fd, uint64_t max_bytes) : fd_(fd), limit_(max_bytes), left_(max_bytes) {}

  uint64_t limit() const { return limit_; }
  int error() const { return error_; }
  bool pastLimit() const { return past_limit_; }

 protected:
  int_type underflow() override {
    if (gptr() < egptr()) return traits_type::to_int_type(*gptr());
    if (left_ == 0) {
      char probe = 0;  // one byte more says whether the file went on past the limit
      past_limit_ = readSome(&probe, 1) > 0;
      return traits_type::eof();
    }
    const size_t got = readSome(bytes_, static_cast<size_t>(std::min<uint64_t>(left_, kBytes)));
    if (got == 0) return traits_type::eof();
    left_ -= got;
    setg(bytes_, bytes_, bytes_ + got);
    return traits_type::to_int_type(*gptr());
  }

 private:
  static constexpr size_t kBytes = 64 * 1024;

  size_t readSome(char* out, size_t n) {
    for (;;) {
      const ssize_t got = ::read(fd_, out, n);
      if (got >= 0) return static_cast<size_t>(got);
      if (errno == EINTR) continue;
      error_ = errno;
      return 0;
    }
  }

  int fd_;
  uint64_t limit_;
  uint64_t left_;
  int error_ = 0;
  bool past_limit_ = false;
  char bytes_[kBytes];
};

InputFile::InputFile(std::string path, std::string_view what)
    : path_(std::move(path)), what_(what) {
  // O_NONBLOCK: opening a pipe must not wait for a writer; regular files ignore it.
  fd_ = ::open(path_.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd_ < 0) {
    throw Error(fmt::format("{}: cannot open the {}: {}", path_, what_, std::strerror(errno)));
  }
  struct stat st {};
  if (::fstat(fd_, &st) != 0) {
    const int error = errno;
    ::close(fd_);
    throw Error(fmt::format("{}: cannot read the {}: {}", path_, what_, std::strerror(error)));
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd_);
    throw Error(fmt::format("{}: cannot read the {}: {}, not a regular file", path_, what_,
                            fileType(st.st_mode)));
  }
  size_ = static_cast<uint64_t>(st.st_size);
}

InputFile::~InputFile() { ::close(fd_); }

void InputFile::failRead(int error) const {
  throw Error(fmt::format("{}: cannot read the {}: {}", path_, what_, std::strerror(error)));
}

void InputFile::failSize(uint64_t size, uint64_t max_bytes) const {
  throw Error(
      fmt::format("{}: the {} is too large: {} bytes, more than the {} bytes memfloor reads", path_,
                  what_, size, max_bytes));
}

void InputFile::checkSize(uint64_t max_bytes) const {
  if (size_ > max_bytes) failSize(size_, max_bytes);
}

std::string InputFile::readAll(uint64_t max_bytes) {
  checkSize(max_bytes);
  // Read to the end rather than size() bytes: the file may change under us; never past the limit.
  std::string text;
  text.resize(static_cast<size_t>(size_) + 1);
  size_t filled = 0;
  for (;;) {
    if (filled == text.size()) {
      if (text.size() > max_bytes) failSize(text.size(), max_bytes);
      text.resize(static_cast<size_t>(std::min<uint64_t>(text.size() * 2, max_bytes + 1)));
    }
    const ssize_t n = ::read(fd_, text.data() + filled, text.size() - filled);
    if (n < 0) {
      if (errno == EINTR) continue;
      failRead(errno);
    }
    if (n == 0) break;
    filled += static_cast<size_t>(n);
  }
  if (filled > max_bytes) failSize(filled, max_bytes);
  text.resize(filled);
  return text;
}

std::istream& InputFile::stream(uint64_t max_bytes) {
  checkSize(max_bytes);
  buffer_ = std::make_unique<Buffer>(fd_, max_bytes);
  stream_ = std::make_unique<std::istream>(buffer_.get());
  return *stream_;
}

void InputFile::checkStream() const {
  if (!buffer_) return;
  if (buffer_->error() != 0) failRead(buffer_->error());
  if (buffer_->pastLimit()) {
    throw Error(fmt::format("{}: the {} is too large: more than the {} bytes memfloor reads", path_,
                            what_, buffer_->limit()));
  }
}

}  // namespace memfloor::common
