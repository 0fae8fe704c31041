// The PATH search; processes through posix_spawn (the file actions set up the redirects, the
// attributes the signals), fork for a function, and waitpid with EINTR retried.
#include "common/process.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <utility>

extern char** environ;

namespace memfloor::common {
namespace {

// The exit status of a child that could not run what it was given (the shell's "not found").
constexpr int kCannotRun = 127;

constexpr const char* kShell = "/bin/sh";

// What execvp searches when PATH is unset (glibc's confstr(_CS_PATH)).
constexpr std::string_view kDefaultPath = "/bin:/usr/bin";

std::vector<char*> cStrings(const std::vector<std::string>& strings) {
  std::vector<char*> out;
  out.reserve(strings.size() + 1);
  for (const std::string& s : strings) out.push_back(const_cast<char*>(s.c_str()));
  out.push_back(nullptr);
  return out;
}

// posix_spawn's file actions and attributes for one start, destroyed with it.
class SpawnSetup {
 public:
  SpawnSetup() {
    posix_spawn_file_actions_init(&actions_);
    posix_spawnattr_init(&attributes_);
  }
  ~SpawnSetup() {
    posix_spawnattr_destroy(&attributes_);
    posix_spawn_file_actions_destroy(&actions_);
  }
  SpawnSetup(const SpawnSetup&) = delete;
  SpawnSetup& operator=(const SpawnSetup&) = delete;

  // Standard stream `stream` from `redirect`; `child_end` is the child's end of its pipe.
  void redirect(int stream, const Redirect& redirect, int child_end) {
    const int write_flags = O_WRONLY | O_CREAT | O_TRUNC;
    constexpr mode_t kNewFileMode = 0666;  // less the umask, as a shell's `>` makes it
    switch (redirect.kind) {
      case Redirect::Kind::kInherit:
        break;
      case Redirect::Kind::kNull:
        posix_spawn_file_actions_addopen(&actions_, stream, "/dev/null",
                                         stream == kStdin ? O_RDONLY : O_WRONLY, 0);
        break;
      case Redirect::Kind::kFile:
        posix_spawn_file_actions_addopen(&actions_, stream, redirect.path.c_str(),
                                         stream == kStdin ? O_RDONLY : write_flags, kNewFileMode);
        break;
      case Redirect::Kind::kFd:
        // Onto itself too: glibc then clears its close-on-exec flag, as POSIX asks.
        posix_spawn_file_actions_adddup2(&actions_, redirect.fd, stream);
        break;
      case Redirect::Kind::kPipe:
        posix_spawn_file_actions_adddup2(&actions_, child_end, stream);
        break;
    }
  }

  void signals(const ProgramOptions& options) {
    short flags = 0;
    if (options.signal_mask) {
      posix_spawnattr_setsigmask(&attributes_, &*options.signal_mask);
      flags |= POSIX_SPAWN_SETSIGMASK;
    }
    if (!options.default_signals.empty()) {
      sigset_t set;
      sigemptyset(&set);
      for (int sig : options.default_signals) sigaddset(&set, sig);
      posix_spawnattr_setsigdefault(&attributes_, &set);
      flags |= POSIX_SPAWN_SETSIGDEF;
    }
    posix_spawnattr_setflags(&attributes_, flags);
  }

  // 0, or the errno of the failure (of the exec too: glibc reports it).
  int spawn(pid_t& pid, const std::string& program, char* const* argv, char* const* envp) const {
    return ::posix_spawn(&pid, program.c_str(), &actions_, &attributes_, argv, envp);
  }

 private:
  posix_spawn_file_actions_t actions_{};
  posix_spawnattr_t attributes_{};
};

}  // namespace

std::string searchPath() {
  const char* path = std::getenv("PATH");
  return std::string(path != nullptr ? std::string_view(path) : kDefaultPath);
}

std::vector<std::string> searchPathFolders(std::string_view path) {
  std::vector<std::string> folders;
  for (std::size_t begin = 0; begin <= path.size();) {
    const std::size_t end = std::min(path.find(':', begin), path.size());
    folders.emplace_back(end == begin ? std::string_view(".") : path.substr(begin, end - begin));
    begin = end + 1;
  }
  return folders;
}

bool isExecutableFile(const std::string& path) {
  struct stat info {};
  return ::stat(path.c_str(), &info) == 0 && S_ISREG(info.st_mode) &&
         ::access(path.c_str(), X_OK) == 0;
}

namespace {

// findProgramByName, and the errno execvp gives where it finds nothing: EACCES when a file of
// that name was there but may not be executed, else ENOENT.
std::pair<std::string, int> searchFor(std::string_view name, std::string_view path) {
  if (name.empty()) return {{}, ENOENT};
  if (name.find('/') != std::string_view::npos) return {std::string(name), 0};
  int error = ENOENT;
  for (const std::string& folder : searchPathFolders(path)) {
    std::string candidate = (std::filesystem::path(folder) / name).string();
    if (isExecutableFile(candidate)) return {std::move(candidate), 0};
    struct stat info {};
    if (::stat(candidate.c_str(), &info) == 0 && S_ISREG(info.st_mode)) error = EACCES;
  }
  return {{}, error};
}

}  // namespace

std::string findProgramByName(std::string_view name, std::string_view path) {
  return searchFor(name, path).first;
}

ExitStatus exitStatus(int wait_status) {
  ExitStatus status;
  if (WIFEXITED(wait_status)) {
    status.exit_code = WEXITSTATUS(wait_status);
  } else if (WIFSIGNALED(wait_status)) {
    status.signal = WTERMSIG(wait_status);
    status.exit_code = kSignalExitBase + status.signal;
  }
  return status;
}

Process::Process(Process&& other) noexcept
    : pid_(other.pid_),
      waited_(other.waited_),
      status_(other.status_),
      error_(std::move(other.error_)),
      pipes_(std::move(other.pipes_)) {
  other.pid_ = 0;
}

Process::~Process() {
  for (Fd& fd : pipes_) fd.reset();  // a child blocked on a pipe sees it closed
  if (pid_ > 0 && !waited_) {
    kill(SIGKILL);
    wait();
  }
}

void Process::kill(int signal) const {
  if (pid_ > 0 && !waited_) ::kill(pid_, signal);
}

ExitStatus Process::wait() {
  if (pid_ <= 0 || waited_) return status_;
  int wait_status = 0;
  while (::waitpid(pid_, &wait_status, 0) < 0 && errno == EINTR) {
  }
  waited_ = true;
  status_ = exitStatus(wait_status);
  return status_;
}

Process startProgram(const std::vector<std::string>& argv, const ProgramOptions& options) {
  Process child;
  if (argv.empty()) {
    child.error_ = "no command given";
    return child;
  }
  const auto [program, search_error] = options.program.empty()
                                           ? searchFor(argv[0], searchPath())
                                           : std::pair<std::string, int>{options.program, 0};
  if (program.empty()) {
    child.error_ = std::strerror(search_error);  // what execvp says of it
    return child;
  }
  SpawnSetup setup;
  std::array<Fd, 3> child_ends;
  for (int stream : {kStdin, kStdout, kStderr}) {
    const Redirect& redirect = options.redirects.at(static_cast<size_t>(stream));
    if (redirect.kind == Redirect::Kind::kPipe) {
      Pipe pipe;
      if (!pipe.open()) {
        child.error_ = std::string("cannot create a pipe: ") + std::strerror(errno);
        return child;
      }
      const bool in = stream == kStdin;
      child_ends.at(static_cast<size_t>(stream)) = std::move(in ? pipe.read : pipe.write);
      child.pipes_.at(static_cast<size_t>(stream)) = std::move(in ? pipe.write : pipe.read);
    }
    setup.redirect(stream, redirect, child_ends.at(static_cast<size_t>(stream)).get());
  }
  setup.signals(options);
  std::vector<char*> args = cStrings(argv);
  std::vector<char*> env;
  if (options.environment) env = cStrings(*options.environment);
  char* const* envp = options.environment ? env.data() : environ;
  pid_t pid = 0;
  int rc = setup.spawn(pid, program, args.data(), envp);
  if (rc == ENOEXEC) {
    // As execvp: a file without a "#!" line is a shell script, run as `sh FILE ARGS...`.
    std::vector<std::string> shell_argv = {kShell, program};
    shell_argv.insert(shell_argv.end(), argv.begin() + 1, argv.end());
    std::vector<char*> shell_args = cStrings(shell_argv);
    rc = setup.spawn(pid, kShell, shell_args.data(), envp);
  }
  if (rc != 0) {
    child.error_ = std::strerror(rc);
    for (Fd& fd : child.pipes_) fd.reset();
    return child;
  }
  child.pid_ = pid;
  return child;  // the child's ends close here: it holds the only copies
}

Process startFunction(const std::function<int()>& body) {
  Process child;
  const pid_t pid = ::fork();
  if (pid < 0) {
    child.error_ = std::string("cannot fork: ") + std::strerror(errno);
    return child;
  }
  if (pid == 0) {
    int code = kCannotRun;
    try {
      code = body();
    } catch (...) {
      // the forked copy only exits
    }
    ::_exit(code);
  }
  child.pid_ = pid;
  return child;
}

}  // namespace memfloor::common
