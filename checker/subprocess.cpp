// A child process through posix_spawnp and two pipes read with poll until both are closed.
#include "checker/subprocess.h"

#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <csignal>
#include <cstring>

#include "common/error.h"

extern char** environ;

namespace memfloor::checker {
namespace {

constexpr std::size_t kReadChunk = std::size_t{64} << 10;
constexpr int kSignalExitBase = 128;  // the shell's convention for "ended by signal N"

// A file descriptor closed when it goes out of scope.
class Fd {
 public:
  Fd() = default;
  explicit Fd(int fd) : fd_(fd) {}
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd() { reset(); }
  int get() const { return fd_; }
  void reset() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }

 private:
  int fd_ = -1;
};

struct Pipe {
  Fd read;
  Fd write;
};

Pipe makePipe(const std::string& program) {
  std::array<int, 2> fds{};
  if (::pipe2(fds.data(), O_CLOEXEC) != 0) {
    throw Error("cannot run '" + program + "': cannot create a pipe: " + std::strerror(errno));
  }
  return Pipe{Fd(fds[0]), Fd(fds[1])};
}

// Starts the child with `out` and `err` as its standard output and error; returns its pid.
pid_t spawn(const std::vector<std::string>& argv, int out, int err) {
  std::vector<char*> args;
  args.reserve(argv.size() + 1);
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, out, STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, err, STDERR_FILENO);
  pid_t pid = 0;
  const int rc = ::posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) throw Error("cannot run '" + argv[0] + "': " + std::strerror(rc));
  return pid;
}

// Appends what `fd` has to `to` (up to `max` bytes kept); false at the end of the stream.
bool drain(int fd, std::vector<char>& buffer, std::string& to, std::size_t max, bool& truncated) {
  const ssize_t n = ::read(fd, buffer.data(), buffer.size());
  if (n < 0) return errno == EINTR || errno == EAGAIN;
  if (n == 0) return false;
  const std::size_t room = max - std::min(max, to.size());
  const std::size_t keep = std::min(room, static_cast<std::size_t>(n));
  to.append(buffer.data(), keep);
  if (keep < static_cast<std::size_t>(n)) truncated = true;
  return true;
}

// The same into pieces of kOutPieceBytes, each allocated once; `kept` counts the bytes kept.
bool drain(int fd, std::vector<char>& buffer, PiecewiseText& to, std::size_t& kept, std::size_t max,
           bool& truncated) {
  const ssize_t n = ::read(fd, buffer.data(), buffer.size());
  if (n < 0) return errno == EINTR || errno == EAGAIN;
  if (n == 0) return false;
  const std::size_t keep = std::min(max - std::min(max, kept), static_cast<std::size_t>(n));
  for (std::size_t done = 0; done < keep;) {
    if (to.pieces.empty() || to.pieces.back().size() == kOutPieceBytes) {
      to.pieces.emplace_back().reserve(kOutPieceBytes);
    }
    std::string& piece = to.pieces.back();
    const std::size_t part = std::min(keep - done, kOutPieceBytes - piece.size());
    piece.append(buffer.data() + done, part);
    done += part;
  }
  kept += keep;
  if (keep < static_cast<std::size_t>(n)) truncated = true;
  return true;
}

int waitFor(pid_t pid) {
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return status;
}

}  // namespace

std::size_t PiecewiseText::size() const {
  std::size_t total = 0;
  for (const std::string& piece : pieces) total += piece.size();
  return total;
}

std::string PiecewiseText::joined() const {
  std::string text;
  text.reserve(size());
  for (const std::string& piece : pieces) text += piece;
  return text;
}

SubprocessResult runSubprocess(const std::vector<std::string>& argv, std::size_t max_out) {
  if (argv.empty()) throw Error("cannot run a program: no command given");
  Pipe out = makePipe(argv[0]);
  Pipe err = makePipe(argv[0]);
  const pid_t pid = spawn(argv, out.write.get(), err.write.get());
  out.write.reset();  // the child holds the only write ends: the reads end when it does
  err.write.reset();
  SubprocessResult result;
  bool err_truncated = false;
  std::size_t out_kept = 0;
  std::vector<char> buffer(kReadChunk);
  std::array<pollfd, 2> fds{pollfd{out.read.get(), POLLIN, 0}, pollfd{err.read.get(), POLLIN, 0}};
  while (fds[0].fd >= 0 || fds[1].fd >= 0) {
    if (::poll(fds.data(), fds.size(), -1) < 0) {
      if (errno == EINTR) continue;
      const int error = errno;
      ::kill(pid, SIGKILL);
      waitFor(pid);
      throw Error("cannot read the output of '" + argv[0] + "': " + std::strerror(error));
    }
    for (std::size_t i = 0; i < fds.size(); ++i) {
      if (fds[i].fd < 0 || fds[i].revents == 0) continue;
      const bool open =
          i == 0 ? drain(fds[i].fd, buffer, result.out, out_kept, max_out, result.out_truncated)
                 : drain(fds[i].fd, buffer, result.err, kMaxSubprocessErrBytes, err_truncated);
      if (!open) fds[i].fd = -1;  // poll skips negative descriptors; Fd closes it
    }
  }
  const int status = waitFor(pid);
  if (WIFSIGNALED(status)) {
    result.signal = WTERMSIG(status);
    result.exit_code = kSignalExitBase + result.signal;
  } else {
    result.exit_code = WEXITSTATUS(status);
  }
  return result;
}

}  // namespace memfloor::checker
