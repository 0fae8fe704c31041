// Exit and signal flushing for the hook.
#include "runtime_hook/exit_flush.h"

#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>

namespace memfloor::hook {

namespace {

constexpr int kMaxSignal = 65;

// Process-wide by nature (signal dispositions are): the one place the hook keeps such state
// outside its session object.
struct FlushState {
  FlushAction action = nullptr;
  void* context = nullptr;
  int timeout_ms = kDefaultFlushTimeoutMs;
  pid_t owner = 0;
  int request[2] = {-1, -1};  // handler -> flusher: one byte, 1 = final
  int done[2] = {-1, -1};     // flusher -> handler
  struct sigaction previous[kMaxSignal];
  bool installed_signal[kMaxSignal] = {};
  std::atomic<bool> disabled{false};
  std::atomic<bool> finished{false};  // a final flush ran: later ones are no-ops
  std::atomic<int> in_handler{0};
};

FlushState& state() {
  static FlushState s;
  return s;
}

bool active() {
  FlushState& s = state();
  return !s.disabled.load(std::memory_order_acquire) && s.owner == ::getpid();
}

void runAction(bool final) {
  FlushState& s = state();
  if (s.finished.load(std::memory_order_acquire)) return;
  if (final && s.finished.exchange(true)) return;
  s.action(final, s.context);
}

void* flusherMain(void*) {
  FlushState& s = state();
  for (;;) {
    char byte = 0;
    ssize_t n = ::read(s.request[0], &byte, 1);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return nullptr;
    runAction(byte == 1);
    char ack = 1;
    while (::write(s.done[1], &ack, 1) < 0 && errno == EINTR) {
    }
  }
}

void chain(int sig, siginfo_t* info, void* ucontext) {
  FlushState& s = state();
  const struct sigaction& prev = s.previous[sig];
  if ((prev.sa_flags & SA_SIGINFO) != 0) {
    if (prev.sa_sigaction != nullptr) prev.sa_sigaction(sig, info, ucontext);
    return;
  }
  if (prev.sa_handler == SIG_IGN) return;
  if (prev.sa_handler == SIG_DFL) {
    // Restore the default action and re-raise: the signal is blocked while we run, so the process
    // ends with the signal's own status as soon as this handler returns.
    struct sigaction dfl;
    std::memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    ::sigaction(sig, &dfl, nullptr);
    ::raise(sig);
    return;
  }
  prev.sa_handler(sig);
}

void onSignal(int sig, siginfo_t* info, void* ucontext) {
  int saved_errno = errno;
  FlushState& s = state();
  if (sig > 0 && sig < kMaxSignal && active() && s.in_handler.fetch_add(1) == 0) {
    const struct sigaction& prev = s.previous[sig];
    bool final = (prev.sa_flags & SA_SIGINFO) == 0 && prev.sa_handler == SIG_DFL;
    bool ignored = (prev.sa_flags & SA_SIGINFO) == 0 && prev.sa_handler == SIG_IGN;
    if (!ignored) {
      // Drain stale acknowledgements, ask the flusher, wait for it (bounded).
      char junk[16];
      while (::read(s.done[0], junk, sizeof junk) > 0) {
      }
      char byte = final ? 1 : 0;
      if (::write(s.request[1], &byte, 1) == 1) {
        struct pollfd pfd {
          s.done[0], POLLIN, 0
        };
        while (::poll(&pfd, 1, s.timeout_ms) < 0 && errno == EINTR) {
        }
      }
    }
  }
  if (sig > 0 && sig < kMaxSignal) s.in_handler.fetch_sub(1);
  errno = saved_errno;
  if (sig > 0 && sig < kMaxSignal) chain(sig, info, ucontext);
}

void onExit() {
  if (active()) runAction(true);
}

void onForkChild() { disableExitFlush(); }

}  // namespace

void disableExitFlush() { state().disabled.store(true, std::memory_order_release); }

bool installExitFlush(FlushAction action, void* context, const ExitFlushOptions& options) {
  FlushState& s = state();
  if (s.action != nullptr || action == nullptr) return false;
  if (::pipe2(s.request, O_CLOEXEC) != 0) return false;
  if (::pipe2(s.done, O_CLOEXEC | O_NONBLOCK) != 0) {
    ::close(s.request[0]);
    ::close(s.request[1]);
    return false;
  }
  s.action = action;
  s.context = context;
  s.timeout_ms = options.timeout_ms;
  s.owner = ::getpid();

  // The flusher thread runs with every signal blocked, so a handler never waits on itself.
  sigset_t all;
  sigset_t old;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &old);
  pthread_t thread;
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
  pthread_attr_setstacksize(&attr, 256u << 10);
  bool thread_ok = pthread_create(&thread, &attr, flusherMain, nullptr) == 0;
  pthread_attr_destroy(&attr);
  pthread_sigmask(SIG_SETMASK, &old, nullptr);

  pthread_atfork(nullptr, nullptr, onForkChild);
  if (options.at_exit) std::atexit(onExit);
  if (!thread_ok) return true;  // exit flushing still works; signals keep their old handlers

  static const int kDefaultSignals[] = {SIGTERM, SIGINT, SIGHUP, SIGQUIT};
  const int* signals = options.signals != nullptr ? options.signals : kDefaultSignals;
  size_t count = options.signals != nullptr ? options.signal_count : 4;
  for (size_t i = 0; i < count; ++i) {
    int sig = signals[i];
    if (sig <= 0 || sig >= kMaxSignal) continue;
    struct sigaction current;
    if (::sigaction(sig, nullptr, &current) != 0) continue;
    // A signal the program ignores stays ignored: we never make a signal fatal.
    if ((current.sa_flags & SA_SIGINFO) == 0 && current.sa_handler == SIG_IGN) continue;
    struct sigaction ours;
    std::memset(&ours, 0, sizeof ours);
    ours.sa_sigaction = onSignal;
    ours.sa_flags = SA_SIGINFO | SA_RESTART | (current.sa_flags & SA_ONSTACK);
    sigemptyset(&ours.sa_mask);
    s.previous[sig] = current;
    if (::sigaction(sig, &ours, nullptr) == 0) s.installed_signal[sig] = true;
  }
  return true;
}

}  // namespace memfloor::hook
