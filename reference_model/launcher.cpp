// --ranks N: starts one process per rank of this same program and waits for them.
#include "launcher.h"

#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <iostream>
#include <string>
#include <string_view>
#include <vector>

#include "rank_rendezvous.h"

extern char** environ;  // NOLINT(readability-redundant-declaration): POSIX declares it nowhere

namespace refmodel {

namespace {

constexpr std::string_view kRankVariables[] = {"RANK=", "WORLD_SIZE=", "LOCAL_RANK=",
                                               "MASTER_ADDR=", "MASTER_PORT="};

int exitCode(int status) {
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return 1;
}

}  // namespace

int launchRanks(int ranks, char** argv) {
  std::vector<std::string> inherited;
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string_view entry(*e);
    bool ours = false;
    for (std::string_view v : kRankVariables) ours = ours || entry.starts_with(v);
    if (!ours) inherited.emplace_back(entry);
  }
  const int port = freeLoopbackPort();
  std::vector<pid_t> children;
  int result = 0;
  for (int r = 0; r < ranks && result == 0; ++r) {
    std::vector<std::string> env = inherited;
    env.push_back("RANK=" + std::to_string(r));
    env.push_back("WORLD_SIZE=" + std::to_string(ranks));
    env.push_back("LOCAL_RANK=" + std::to_string(r));
    env.push_back("MASTER_ADDR=127.0.0.1");
    env.push_back("MASTER_PORT=" + std::to_string(port));
    std::vector<char*> envp;
    for (std::string& s : env) envp.push_back(s.data());
    envp.push_back(nullptr);
    pid_t pid = 0;
    const int error = posix_spawn(&pid, "/proc/self/exe", nullptr, nullptr, argv, envp.data());
    if (error != 0) {
      std::cerr << "reference_model: error: --ranks: cannot start rank " << r << ": "
                << std::strerror(error) << "\n";
      result = 1;
      break;
    }
    children.push_back(pid);
  }
  if (result != 0) {
    for (pid_t child : children) kill(child, SIGTERM);
  }
  std::vector<pid_t> running = children;
  while (!running.empty()) {
    int status = 0;
    const pid_t pid = waitpid(-1, &status, 0);
    if (pid < 0) {
      if (errno == EINTR) continue;
      break;
    }
    std::erase(running, pid);
    const int code = exitCode(status);
    if (code != 0 && result == 0) {
      result = code;
      for (pid_t child : running) kill(child, SIGTERM);
    }
  }
  return result;
}

}  // namespace refmodel
