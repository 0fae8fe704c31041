// Runs a command as a child process with a given environment, forwarding termination signals to
// it, and reports how it ended. Used by `memfloor run` and `memfloor demo`.
#pragma once

#include <string>
#include <vector>

namespace memfloor::cli {

struct ChildResult {
  bool started = false;  // false: it could not be started (see error)
  int exit_code = 0;     // the child's exit status, or 128 + signal if a signal ended it
  int signal = 0;        // the signal that ended it, 0 if it exited
  std::string error;     // why it did not start: "cannot start 'x': No such file or directory"
};

// Starts argv[0] (searched in PATH) with exactly `environment` ("NAME=value" entries) and waits
// for it. While it runs, SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1 and SIGUSR2 sent to this
// process are forwarded to the child, except those the terminal sent to the whole foreground
// process group (the child already got them). Never throws for a child that fails to start.
// stdout_fd >= 0: the child's standard output goes there.
ChildResult runChild(const std::vector<std::string>& argv,
                     const std::vector<std::string>& environment, int stdout_fd = -1);

}  // namespace memfloor::cli
