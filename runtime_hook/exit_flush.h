// Runs the hook's flush when the process ends: at exit, and on SIGTERM/SIGINT (and friends) before
// chaining to whatever handler was installed before ours. The signal handler does no work of its
// own: it wakes a flusher thread, waits for it with a timeout (a thread interrupted while holding
// the writer's lock must not deadlock the exit), then chains.
#pragma once

#include <cstddef>

namespace memfloor::hook {

inline constexpr int kDefaultFlushTimeoutMs = 3000;

// final: the process is about to end (exit, or a signal whose previous disposition was the
// default action): write the trailer. Otherwise (the program handles the signal itself and may
// run on): make what was recorded durable and keep tracing.
using FlushAction = void (*)(bool final, void* context);

struct ExitFlushOptions {
  const int* signals = nullptr;  // default: SIGTERM, SIGINT, SIGHUP, SIGQUIT
  size_t signal_count = 0;
  int timeout_ms = kDefaultFlushTimeoutMs;  // how long a signal handler waits for the flush
  bool at_exit = true;                      // also register an atexit handler
};

// Installs once per process; false (and nothing installed) on failure or a second call.
bool installExitFlush(FlushAction action, void* context, const ExitFlushOptions& options = {});

// Disables the handlers in this process (they only chain). Async-signal-safe; the pthread_atfork
// child handler calls it so that a forked child never writes its parent's file.
void disableExitFlush();

}  // namespace memfloor::hook
