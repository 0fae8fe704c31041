// The one way the offline side opens a file it reads: only a regular file, and never waiting.
//
// Every reader of untrusted files goes through InputFile: the JSON inputs (json_input.h), binary
// traces (trace/source.h), text traces (trace/trace_file.h) and the source files findings quote
// (analysis/findings.h). A pipe given as an input would block the reader until a writer came, and
// a device such as /dev/zero would be read without end; both are refused with a message naming
// the file and what it is.
#pragma once

#include <cstdint>
#include <istream>
#include <memory>
#include <string>
#include <string_view>

namespace memfloor::common {

// How messages call a file that is not a regular one: "a directory", "a pipe", "a socket",
// "a device", else "not a regular file". `mode` is a stat st_mode.
std::string_view fileType(unsigned mode);

class InputFile {
 public:
  // Opens `path` (symbolic links are followed) with O_NONBLOCK, so that a pipe without a writer
  // opens at once, then checks the type on the descriptor: what is checked is what is read.
  // `what` names the file in messages ("trace": "<path>: cannot open the trace: ..."). Throws
  // memfloor::Error when it cannot be opened or is not a regular file.
  InputFile(std::string path, std::string_view what);
  ~InputFile();
  InputFile(const InputFile&) = delete;
  InputFile& operator=(const InputFile&) = delete;

  int fd() const { return fd_; }
  uint64_t size() const { return size_; }  // when opened
  const std::string& path() const { return path_; }

  // Throws unless the file, as opened, is at most `max_bytes`: "<path>: the <what> is too large:
  // N bytes, more than the M bytes memfloor reads".
  void checkSize(uint64_t max_bytes) const;

  // The whole file, read to its end (it may have grown since it was opened), at most `max_bytes`
  // (checkSize first, then again while reading). Throws memfloor::Error on a read error.
  std::string readAll(uint64_t max_bytes);

  // The file as a stream, for line readers (checkSize first). It ends at the end of the file, at
  // a read error or after `max_bytes` (the file grew while it was read); once the reader is done,
  // checkStream() throws for the last two, which the stream cannot tell from an end.
  std::istream& stream(uint64_t max_bytes);
  void checkStream() const;

 private:
  class Buffer;

  [[noreturn]] void failRead(int error) const;
  [[noreturn]] void failSize(uint64_t size, uint64_t max_bytes) const;

  std::string path_;
  std::string what_;
  int fd_ = -1;
  uint64_t size_ = 0;
  std::unique_ptr<Buffer> buffer_;
  std::unique_ptr<std::istream> stream_;
};

}  // namespace memfloor::common
