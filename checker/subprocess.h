// Runs a program without a shell and captures its standard output and standard error.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace memfloor::checker {

struct SubprocessResult {
  int exit_code = 0;           // its exit status; 128 + the signal when a signal ended it
  int signal = 0;              // the signal that ended it, 0 when it exited
  std::string out;             // its standard output, at most `max_out` bytes of it
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
