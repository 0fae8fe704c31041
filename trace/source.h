// Where the readers' bytes come from: a file (positional reads) or a memory buffer.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>

namespace memfloor::common {
class InputFile;
}

namespace memfloor::trace {

class Source {
 public:
  virtual ~Source() = default;
  virtual uint64_t size() const = 0;
  // Reads up to n bytes at offset; returns the count read (less only at the end).
  virtual size_t readAt(uint64_t offset, void* out, size_t n) const = 0;
  virtual const std::string& name() const = 0;  // for messages: the path or a label
  // The whole source where it is held in memory, else empty: the chunk loader then reads chunks
  // in place rather than copying them.
  virtual std::span<const uint8_t> inMemory() const { return {}; }
};

class FileSource final : public Source {
 public:
  // Opened through common::InputFile: throws memfloor::Error naming the path when it does not
  // exist, cannot be read or is not a regular file (a pipe is refused, never waited on).
  explicit FileSource(std::string path);
  ~FileSource() override;
  FileSource(const FileSource&) = delete;
  FileSource& operator=(const FileSource&) = delete;
  uint64_t size() const override;
  size_t readAt(uint64_t offset, void* out, size_t n) const override;
  const std::string& name() const override { return path_; }

 private:
  std::string path_;
  std::unique_ptr<common::InputFile> file_;
};

// Does not own the bytes.
class MemorySource final : public Source {
 public:
  MemorySource(std::span<const uint8_t> bytes, std::string name = "<memory>");
  uint64_t size() const override { return bytes_.size(); }
  size_t readAt(uint64_t offset, void* out, size_t n) const override;
  const std::string& name() const override { return name_; }
  std::span<const uint8_t> inMemory() const override { return bytes_; }

 private:
  std::span<const uint8_t> bytes_;
  std::string name_;
};

}  // namespace memfloor::trace
