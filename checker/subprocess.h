// Runs a program without a shell and captures its standard output and standard error.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace memfloor::checker {

// A child's standard output as read: its bytes in order, in pieces of at most kOutPieceBytes. A
// large output is not copied again and again to grow one string (on the Python front end's 17 MB
// for torch/, that copying and the pages it touched were a fifth of memfloor-check's own time).
struct PiecewiseText {
  std::vector<std::string> pieces;

  std::size_t size() const;
  std::string joined() const;
};
inline constexpr std::size_t kOutPieceBytes = std::size_t{1} << 20;

struct SubprocessResult {
  int exit_code = 0;           // its exit status; 128 + the signal when a signal ended it
  int signal = 0;              // the signal that ended it, 0 when it exited
  PiecewiseText out;           // its standard output, at most `max_out` bytes of it
  bool out_truncated = false;  // it wrote more than `max_out` bytes (the rest was read, not kept)
  std::string err;             // the start of its standard error (kMaxSubprocessErrBytes)
};

// How much of a child's standard error is kept for messages.
inline constexpr std::size_t kMaxSubprocessErrBytes = std::size_t{64} << 10;

// Starts argv[0] (a path, or a name looked up on PATH) with argv, this process's environment and
// an empty standard input, reads both outputs as they come (neither pipe can fill up and stall
// the child) and waits for it to end. Throws memfloor::Error "cannot run 'argv[0]': <reason>" when
// it cannot be started.
SubprocessResult runSubprocess(const std::vector<std::string>& argv, std::size_t max_out);

}  // namespace memfloor::checker
