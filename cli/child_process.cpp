// Child process handling for `memfloor run`: fork/exec, signal forwarding, exit status.
#include "cli/child_process.h"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstring>

namespace memfloor::cli {

namespace {

// The exit status of a child that could not run its program (the shell's "command not found").
constexpr int kCannotRun = 127;

constexpr std::array<int, 6> kForwarded = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2};

std::atomic<pid_t> g_child{0};

void forward(int sig, siginfo_t* info, void*) {
  // A terminal's ^C or ^\ reaches the whole foreground process group, the child included
  // (si_code SI_KERNEL): forwarding it would deliver it twice.
  if (info != nullptr && info->si_code == SI_KERNEL) return;
  pid_t child = g_child.load();
  if (child > 0) ::kill(child, sig);
}

// Installs the forwarding handlers for its lifetime and restores the old ones after.
class SignalForwarding {
 public:
  SignalForwarding() {
    struct sigaction action;
    std::memset(&action, 0, sizeof action);
    action.sa_sigaction = forward;
    action.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&action.sa_mask);
    for (size_t i = 0; i < kForwarded.size(); ++i) {
      ::sigaction(kForwarded[i], &action, &previous_[i]);
    }
  }
  ~SignalForwarding() {
    for (size_t i = 0; i < kForwarded.size(); ++i) {
      ::sigaction(kForwarded[i], &previous_[i], nullptr);
    }
  }
  SignalForwarding(const SignalForwarding&) = delete;
  SignalForwarding& operator=(const SignalForwarding&) = delete;

 private:
  std::array<struct sigaction, kForwarded.size()> previous_{};
};

[[noreturn]] void execChild(char* const* argv, char* const* envp, int error_fd, int stdout_fd,
                            const sigset_t& old_mask) {
  if (stdout_fd >= 0 && ::dup2(stdout_fd, STDOUT_FILENO) < 0) {
    int err = errno;
    ssize_t ignored = ::write(error_fd, &err, sizeof err);
    (void)ignored;
    ::_exit(kCannotRun);
  }
  // Default dispositions and the caller's mask for the child, whatever memfloor had.
  for (int sig : kForwarded) ::signal(sig, SIG_DFL);
  ::sigprocmask(SIG_SETMASK, &old_mask, nullptr);
  ::execvpe(argv[0], argv, envp);
  int err = errno;
  ssize_t ignored = ::write(error_fd, &err, sizeof err);
  (void)ignored;
  ::_exit(kCannotRun);
}

}  // namespace

ChildResult runChild(const std::vector<std::string>& argv,
                     const std::vector<std::string>& environment, int stdout_fd) {
  ChildResult result;
  if (argv.empty()) {
    result.error = "no command given";
    return result;
  }
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  std::vector<char*> env;
  for (const std::string& e : environment) env.push_back(const_cast<char*>(e.c_str()));
  env.push_back(nullptr);

  int error_pipe[2];
  if (::pipe2(error_pipe, O_CLOEXEC) != 0) {
    result.error = std::string("cannot create a pipe: ") + std::strerror(errno);
    return result;
  }
  SignalForwarding forwarding;
  // Block the forwarded signals around fork so none is lost between fork and recording the pid.
  sigset_t block;
  sigset_t old_mask;
  sigemptyset(&block);
  for (int sig : kForwarded) sigaddset(&block, sig);
  ::sigprocmask(SIG_BLOCK, &block, &old_mask);
  pid_t pid = ::fork();
  if (pid == 0) {
    ::close(error_pipe[0]);
    execChild(args.data(), env.data(), error_pipe[1], stdout_fd, old_mask);
  }
  int fork_errno = errno;
  if (pid > 0) g_child.store(pid);
  ::sigprocmask(SIG_SETMASK, &old_mask, nullptr);
  ::close(error_pipe[1]);
  if (pid < 0) {
    ::close(error_pipe[0]);
    result.error = std::string("cannot fork: ") + std::strerror(fork_errno);
    return result;
  }

  int exec_errno = 0;
  ssize_t n;
  do {
    n = ::read(error_pipe[0], &exec_errno, sizeof exec_errno);
  } while (n < 0 && errno == EINTR);
  ::close(error_pipe[0]);

  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  g_child.store(0);
  if (n == static_cast<ssize_t>(sizeof exec_errno)) {
    result.error = "cannot start '" + argv[0] + "': " + std::strerror(exec_errno);
    return result;
  }
  result.started = true;
  if (WIFEXITED(status)) {
    result.exit_code = WEXITSTATUS(status);
  } else if (WIFSIGNALED(status)) {
    result.signal = WTERMSIG(status);
    result.exit_code = 128 + result.signal;
  }
  return result;
}

}  // namespace memfloor::cli
