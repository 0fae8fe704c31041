// The one way memfloor writes a file: every report, page, export, trace copy, baseline, findings
// document and log the commands write goes through OutputFile (docs/outputs.md).
//
// A regular file, or a name that does not exist yet, is written to a temporary file created
// exclusively (O_CREAT|O_EXCL|O_NOFOLLOW) in the target's own directory, flushed to disk, then
// renamed over the target: a reader, a second writer or a crash sees the old file or the new one,
// never a part. The temporary is removed on every way out that does not commit. A character
// device or a pipe (/dev/null, /dev/stdout) has no old content to keep and is written in place.
// Refused with an Error naming the file, before anything is written: a symbolic link (a planted
// link must not redirect the write), a directory or other special file, a target that is one of
// the command's own inputs (the same device and inode: a hard link or another spelling counts).
#pragma once

#include <cstddef>
#include <memory>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace memfloor::common {

class OutputFile {
 public:
  // `what` names the file in messages ("report": "<path>: cannot write the report: ...").
  // `inputs` are the paths the command reads; directories among them are ignored.
  OutputFile(std::string path, std::string_view what, const std::vector<std::string>& inputs = {});
  ~OutputFile();  // removes the temporary unless commit() succeeded
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;

  // Writes all n bytes or returns false (the error is kept, and commit() throws it). No exception:
  // for callers that cannot throw, such as a trace::Sink.
  bool write(const void* data, size_t n) noexcept;
  void write(std::string_view text);  // throws Error
  // A buffered stream into the file; its errors surface at commit().
  std::ostream& stream();
  // The descriptor being written (for a child process's output); commit() closes it.
  int fd() const { return fd_; }

  // Flushes, syncs, closes and renames over the target; throws Error on any failure, and then
  // the target is as it was.
  void commit();
  // Throws the Error that commit() would for a write that failed so far (naming the file and the
  // system's reason); nothing when none did. For a caller whose writer reports only that it failed.
  void checkWrites() const;

  const std::string& path() const { return path_; }

 private:
  class Buffer;

  [[noreturn]] void fail(std::string_view reason) const;

  std::string path_;
  std::string what_;
  std::string temporary_;  // empty: written in place (a device or a pipe), or committed
  int fd_ = -1;
  int error_ = 0;  // errno of the first failed write
  std::unique_ptr<Buffer> buffer_;
  std::unique_ptr<std::ostream> stream_;
};

// OutputFile, write, commit: a whole document at once.
void writeOutputFile(const std::string& path, std::string_view what, std::string_view text,
                     const std::vector<std::string>& inputs = {});

// Appends text to path (created if missing), as a CI step summary is appended to: with O_APPEND,
// never through a symbolic link; a failed or short write truncates the file back to its old size.
void appendOutputFile(const std::string& path, std::string_view what, std::string_view text);

// Standard output, checked: output lost to a full disk or a closed descriptor behind `> file`
// must not exit 0. While it lives, std::cout writes through C stdio's stdout (the FILE that
// fmt::print writes, so the two stay in order) and keeps the errno of its first failed write.
class StandardOutput {
 public:
  StandardOutput();
  ~StandardOutput();  // gives std::cout its own buffer back
  StandardOutput(const StandardOutput&) = delete;
  StandardOutput& operator=(const StandardOutput&) = delete;

  // Flushes; throws Error ("standard output: cannot write: <reason>") when anything was lost.
  // `error` is the errno of a failed write seen elsewhere (fmt::print's exception), if any.
  void check(int error = 0);

 private:
  class Buffer;
  std::unique_ptr<Buffer> buffer_;
  std::streambuf* previous_;
};

}  // namespace memfloor::common
