// A child process: found on PATH, started from argv with an environment and redirected standard
// streams, waited for, its exit status read; memfloor's one way to start a program (after LLVM's
// Support/Program.h: findProgramByName, ExecuteNoWait as startProgram, Wait as Process::wait).
#pragma once

#include <sys/types.h>

#include <array>
#include <csignal>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/file_descriptor.h"

namespace memfloor::common {

// The PATH this process searches: $PATH, or execvp's default "/bin:/usr/bin" where it is unset.
std::string searchPath();

// The folders of a PATH value, in order: ':'-separated, an empty entry is the current folder (".").
std::vector<std::string> searchPathFolders(std::string_view path);

// Whether `path` is a regular file (a link is followed) this process may execute.
bool isExecutableFile(const std::string& path);

// The first executable regular file named `name` in the folders of `path` (a PATH value, see
// searchPathFolders), as "<folder>/<name>"; "" when there is none. A name with a '/' is a path and
// is not searched for: it is returned as it is (starting it says whether it is there).
std::string findProgramByName(std::string_view name, std::string_view path = searchPath());

// The shell's convention: a child that a signal ended reports 128 + the signal.
inline constexpr int kSignalExitBase = 128;

// How a child ended.
struct ExitStatus {
  int exit_code = 0;  // its exit status, or kSignalExitBase + the signal when a signal ended it
  int signal = 0;     // the signal that ended it, 0 when it exited
};

// The ExitStatus of a waitpid status.
ExitStatus exitStatus(int wait_status);

// Where one of a child's standard streams goes.
struct Redirect {
  enum class Kind { kInherit, kNull, kFd, kFile, kPipe };
  Kind kind = Kind::kInherit;
  int fd = -1;       // kFd: a descriptor of the caller's, still the caller's to close
  std::string path;  // kFile: read (standard input), else written (created or truncated)

  static Redirect inherit() { return {}; }
  static Redirect null() { return {Kind::kNull, -1, {}}; }  // /dev/null
  static Redirect fromFd(int fd) { return {Kind::kFd, fd, {}}; }
  static Redirect file(std::string path) { return {Kind::kFile, -1, std::move(path)}; }
  // A new pipe; this process holds the other end (Process::pipe).
  static Redirect pipe() { return {Kind::kPipe, -1, {}}; }
};

// The standard streams by number, for ProgramOptions::redirects and Process::pipe.
inline constexpr int kStdin = 0;
inline constexpr int kStdout = 1;
inline constexpr int kStderr = 2;

struct ProgramOptions {
  // The file to run; "" finds argv[0] as execvp does: a name with a '/' is a path, any other is
  // looked up on PATH (findProgramByName).
  std::string program;
  // Exactly these "NAME=value" entries; none: this process's environment.
  std::optional<std::vector<std::string>> environment;
  std::array<Redirect, 3> redirects;  // standard input, output and error; inherited unless set
  // The child's signal mask (none: the starting thread's), and the signals it starts with at
  // their default action (whatever handlers this process has).
  std::optional<sigset_t> signal_mask;
  std::vector<int> default_signals;
};

// A started child, or why none started. One that was never waited for is killed (SIGKILL) and
// waited for when its Process goes away: an error path leaves neither a running child nor a
// zombie.
class Process {
 public:
  Process() = default;
  Process(Process&& other) noexcept;
  Process& operator=(Process&& other) = delete;
  Process(const Process&) = delete;
  Process& operator=(const Process&) = delete;
  ~Process();

  bool started() const { return pid_ > 0; }
  pid_t pid() const { return pid_; }
  // Why it did not start: "No such file or directory", "cannot create a pipe: ...".
  const std::string& error() const { return error_; }
  // This process's end of the pipe of standard stream `stream` (Redirect::pipe); none otherwise.
  Fd& pipe(int stream) { return pipes_.at(static_cast<size_t>(stream)); }

  // Sends `signal` to the child while it has not been waited for.
  void kill(int signal) const;
  // Waits for it to end (EINTR retried); a second call returns the same status.
  ExitStatus wait();

 private:
  friend Process startProgram(const std::vector<std::string>& argv, const ProgramOptions& options);
  friend Process startFunction(const std::function<int()>& body);

  pid_t pid_ = 0;
  bool waited_ = false;
  ExitStatus status_;
  std::string error_;
  std::array<Fd, 3> pipes_;
};

// Starts argv (argv[0] is the child's argv[0]; see ProgramOptions::program) without a shell and
// returns at once. A file the kernel cannot execute for want of a "#!" line is run by /bin/sh, as
// execvp does. Never throws for a program that cannot start: see Process::error.
Process startProgram(const std::vector<std::string>& argv, const ProgramOptions& options = {});

// Runs `body` in a forked copy of this process, which exits with what it returns (127 if it
// throws): for work whose side effects must stay out of this process, like loading a library to
// see whether it loads.
Process startFunction(const std::function<int()>& body);

}  // namespace memfloor::common
