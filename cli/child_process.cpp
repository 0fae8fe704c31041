// Child process handling for `memfloor run`: started by common/process.h with the forwarded
// signals blocked until its pid is known, forwarding them while it runs, its exit status.
#include "cli/child_process.h"

#include <array>
#include <atomic>
#include <csignal>
#include <cstring>

#include "common/process.h"

namespace memfloor::cli {

namespace {

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

}  // namespace

ChildResult runChild(const std::vector<std::string>& argv,
                     const std::vector<std::string>& environment, int stdout_fd) {
  ChildResult result;
  if (argv.empty()) {
    result.error = "no command given";
    return result;
  }
  common::ProgramOptions options;
  options.environment = environment;
  if (stdout_fd >= 0) options.redirects[common::kStdout] = common::Redirect::fromFd(stdout_fd);
  // Default dispositions and the caller's mask for the child, whatever memfloor had.
  options.default_signals.assign(kForwarded.begin(), kForwarded.end());

  SignalForwarding forwarding;
  // Block the forwarded signals around the start so none is lost before the pid is recorded.
  sigset_t block;
  sigset_t old_mask;
  sigemptyset(&block);
  for (int sig : kForwarded) sigaddset(&block, sig);
  ::sigprocmask(SIG_BLOCK, &block, &old_mask);
  options.signal_mask = old_mask;
  common::Process child = common::startProgram(argv, options);
  if (child.started()) g_child.store(child.pid());
  ::sigprocmask(SIG_SETMASK, &old_mask, nullptr);
  if (!child.started()) {
    result.error = "cannot start '" + argv[0] + "': " + child.error();
    return result;
  }
  const common::ExitStatus status = child.wait();
  g_child.store(0);
  result.started = true;
  result.exit_code = status.exit_code;
  result.signal = status.signal;
  return result;
}

}  // namespace memfloor::cli
