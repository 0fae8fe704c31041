// Where the writer's bytes go: a file descriptor or a memory buffer. No exceptions.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace memfloor::trace {

class Sink {
 public:
  virtual ~Sink() = default;
  // Writes all n bytes or returns false.
  virtual bool write(const void* data, size_t n) = 0;
};

// Writes to a file descriptor it owns (closed in the destructor); retries short writes and EINTR.
class FileSink final : public Sink {
 public:
  explicit FileSink(int fd) : fd_(fd) {}
  ~FileSink() override;
  FileSink(const FileSink&) = delete;
  FileSink& operator=(const FileSink&) = delete;

  // Creates path exclusively (O_CREAT|O_EXCL|O_NOFOLLOW|O_CLOEXEC, mode 0644): never follows a
  // symlink and never overwrites an existing file. Returns -1 and sets errno on failure.
  static int createExclusive(const char* path);

  bool write(const void* data, size_t n) override;
  int fd() const { return fd_; }

 private:
  int fd_;
};

class MemorySink final : public Sink {
 public:
  bool write(const void* data, size_t n) override;
  const std::vector<uint8_t>& bytes() const { return bytes_; }

 private:
  std::vector<uint8_t> bytes_;
};

}  // namespace memfloor::trace
