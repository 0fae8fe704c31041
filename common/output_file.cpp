// Outputs through a temporary file and a rename; the checks that come before the first byte.
#include "common/output_file.h"

#include <fcntl.h>
#include <fmt/core.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <random>
#include <streambuf>

#include "common/error.h"
#include "common/input_file.h"
#include "common/write_all.h"

namespace memfloor::common {
namespace {

constexpr mode_t kNewFileMode = 0666;  // less the umask, as any other tool's outputs
constexpr int kTemporaryAttempts = 64;
constexpr mode_t kPermissionBits = 07777;  // rwx for all three, setuid, setgid, sticky

// "dir/name" -> {"dir", "name"}; "name" -> {".", "name"}; "/name" -> {"/", "name"}.
std::pair<std::string, std::string> splitPath(const std::string& path) {
  const size_t slash = path.rfind('/');
  if (slash == std::string::npos) return {".", path};
  return {slash == 0 ? "/" : path.substr(0, slash), path.substr(slash + 1)};
}

bool sameFile(const struct stat& a, const struct stat& b) {
  return a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

// Opens a device or a pipe for writing without waiting: a pipe nobody reads is an error now,
// not a hang. Then the descriptor blocks again, as writes to it should.
int openInPlace(const std::string& path) {
  int fd = ::open(path.c_str(), O_WRONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return fd;
  const int flags = ::fcntl(fd, F_GETFL);
  if (flags >= 0) ::fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
  return fd;
}

std::string symlinkRefusal(const std::string& path, std::string_view what) {
  return fmt::format(
      "{}: will not write the {} through a symbolic link (remove the link, or name the file it "
      "points to)",
      path, what);
}

}  // namespace

// A fixed buffer in front of OutputFile::write: the stream a report writer prints into.
class OutputFile::Buffer final : public std::streambuf {
 public:
  explicit Buffer(OutputFile& file) : file_(file) { setp(bytes_.data(), bytes_.data() + size()); }

 protected:
  int_type overflow(int_type c) override {
    if (!drain()) return traits_type::eof();
    if (!traits_type::eq_int_type(c, traits_type::eof())) {
      *pptr() = traits_type::to_char_type(c);
      pbump(1);
    }
    return traits_type::not_eof(c);
  }
  std::streamsize xsputn(const char* s, std::streamsize n) override {
    if (n <= epptr() - pptr()) {
      std::memcpy(pptr(), s, static_cast<size_t>(n));
      pbump(static_cast<int>(n));
      return n;
    }
    if (!drain() || !file_.write(s, static_cast<size_t>(n))) return 0;
    return n;
  }
  int sync() override { return drain() ? 0 : -1; }

 private:
  static constexpr size_t kBytes = size_t{1} << 16;
  static constexpr std::ptrdiff_t size() { return static_cast<std::ptrdiff_t>(kBytes); }

  bool drain() {
    const auto n = static_cast<size_t>(pptr() - pbase());
    setp(bytes_.data(), bytes_.data() + size());
    return n == 0 || file_.write(bytes_.data(), n);
  }

  OutputFile& file_;
  std::array<char, kBytes> bytes_{};
};

OutputFile::OutputFile(std::string path, std::string_view what,
                       const std::vector<std::string>& inputs)
    : path_(std::move(path)), what_(what) {
  if (path_.empty()) throw Error(fmt::format("an empty path for the {}", what_));
  if (path_.back() == '/') fail("the path names a directory");
  struct stat target {};
  const bool exists = ::lstat(path_.c_str(), &target) == 0;
  if (!exists && errno != ENOENT) fail(std::strerror(errno));
  if (exists) {
    if (S_ISLNK(target.st_mode)) throw Error(symlinkRefusal(path_, what_));
    // Written: a regular file (renamed over), a character device or a pipe (in place).
    if (!S_ISREG(target.st_mode) && !S_ISCHR(target.st_mode) && !S_ISFIFO(target.st_mode)) {
      fail(fmt::format("it is {}", fileType(target.st_mode)));
    }
    for (const std::string& input : inputs) {
      struct stat in {};
      if (::stat(input.c_str(), &in) == 0 && !S_ISDIR(in.st_mode) && sameFile(in, target)) {
        throw Error(fmt::format(
            "{}: will not write the {} over {}, an input of this command (name another output)",
            path_, what_, input));
      }
    }
  }
  if (exists && !S_ISREG(target.st_mode)) {
    fd_ = openInPlace(path_);
    if (fd_ < 0) fail(errno == ENXIO ? "a pipe with no reader" : std::strerror(errno));
  } else {
    auto [dir, name] = splitPath(path_);
    std::random_device random;
    for (int attempt = 0; attempt < kTemporaryAttempts && fd_ < 0; ++attempt) {
      temporary_ = fmt::format("{}/.{}.{:08x}.tmp", dir, name, random());
      fd_ = ::open(temporary_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                   kNewFileMode);
      if (fd_ < 0 && errno != EEXIST) break;
    }
    if (fd_ < 0) {
      const int error = errno;
      temporary_.clear();
      fail(fmt::format("{} (creating a file in {})", std::strerror(error), dir));
    }
    // An existing file keeps its permissions; a new one gets the umask's.
    if (exists) ::fchmod(fd_, target.st_mode & kPermissionBits);
  }
  buffer_ = std::make_unique<Buffer>(*this);
  stream_ = std::make_unique<std::ostream>(buffer_.get());
}

OutputFile::~OutputFile() {
  if (fd_ >= 0) ::close(fd_);
  if (!temporary_.empty()) ::unlink(temporary_.c_str());
}

void OutputFile::fail(std::string_view reason) const {
  throw Error(fmt::format("{}: cannot write the {}: {}", path_, what_, reason));
}

bool OutputFile::write(const void* data, size_t n) noexcept {
  if (error_ != 0 || fd_ < 0) return false;
  error_ = writeAll(fd_, data, n);
  return error_ == 0;
}

void OutputFile::checkWrites() const {
  if (error_ != 0) fail(std::strerror(error_));
}

void OutputFile::write(std::string_view text) {
  if (!write(text.data(), text.size())) fail(std::strerror(error_ != 0 ? error_ : EBADF));
}

std::ostream& OutputFile::stream() { return *stream_; }

void OutputFile::commit() {
  if (fd_ < 0) fail("already written");
  stream_->flush();
  if (error_ != 0) fail(std::strerror(error_));
  if (!*stream_) fail("the stream failed");
  // A full disk may show only now, on the flush to the device: before the rename, not after.
  if (!temporary_.empty() && ::fsync(fd_) != 0) fail(std::strerror(errno));
  const int fd = fd_;
  fd_ = -1;
  if (::close(fd) != 0) fail(std::strerror(errno));
  if (temporary_.empty()) return;
  if (::rename(temporary_.c_str(), path_.c_str()) != 0) {
    fail(fmt::format("{} (renaming {} to it)", std::strerror(errno), temporary_));
  }
  temporary_.clear();
}

void writeOutputFile(const std::string& path, std::string_view what, std::string_view text,
                     const std::vector<std::string>& inputs) {
  OutputFile file(path, what, inputs);
  file.write(text);
  file.commit();
}

void appendOutputFile(const std::string& path, std::string_view what, std::string_view text) {
  const int fd =
      ::open(path.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK,
             kNewFileMode);
  auto fail = [&](int error) {
    throw Error(fmt::format("{}: cannot write the {}: {}", path, what, std::strerror(error)));
  };
  if (fd < 0) {
    if (errno == ELOOP) throw Error(symlinkRefusal(path, what));
    fail(errno);
  }
  struct stat st {};
  const bool regular = ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
  int error = writeAll(fd, text.data(), text.size());
  // What a short append left behind is cut off again: the summary holds whole sections only.
  if (error != 0 && regular) (void)::ftruncate(fd, st.st_size);
  if (::close(fd) != 0 && error == 0) error = errno;
  if (error != 0) fail(error);
}

// std::cout's bytes into stdio's stdout, unbuffered here (stdio buffers), the first errno kept.
class StandardOutput::Buffer final : public std::streambuf {
 public:
  int error() const { return error_; }

 protected:
  int_type overflow(int_type c) override {
    if (traits_type::eq_int_type(c, traits_type::eof())) return traits_type::not_eof(c);
    const char byte = traits_type::to_char_type(c);
    return xsputn(&byte, 1) == 1 ? c : traits_type::eof();
  }
  std::streamsize xsputn(const char* s, std::streamsize n) override {
    const size_t written = std::fwrite(s, 1, static_cast<size_t>(n), stdout);
    if (written != static_cast<size_t>(n) && error_ == 0) error_ = errno != 0 ? errno : EIO;
    return static_cast<std::streamsize>(written);
  }
  int sync() override {
    if (std::fflush(stdout) == 0) return 0;
    if (error_ == 0) error_ = errno != 0 ? errno : EIO;
    return -1;
  }

 private:
  int error_ = 0;
};

StandardOutput::StandardOutput()
    : buffer_(std::make_unique<Buffer>()), previous_(std::cout.rdbuf(buffer_.get())) {}

StandardOutput::~StandardOutput() { std::cout.rdbuf(previous_); }

void StandardOutput::check(int error) {
  std::cout.flush();
  if (error == 0) error = buffer_->error();
  if (std::fflush(stdout) != 0 && error == 0) error = errno != 0 ? errno : EIO;
  if (error == 0 && std::ferror(stdout) == 0 && std::cout.good()) return;
  std::clearerr(stdout);
  throw Error(
      fmt::format("standard output: cannot write: {}", std::strerror(error != 0 ? error : EIO)));
}

}  // namespace memfloor::common
