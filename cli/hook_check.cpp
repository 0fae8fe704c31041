// Loads the hook in a child process to find a missing libcupti before the program runs untraced.
#include "cli/hook_check.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <fmt/core.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>

namespace memfloor::cli {
namespace {

constexpr size_t kReadChunk = 512;  // dlerror texts are a line

}  // namespace

std::string hookLoadError(const std::string& hook) {
  std::array<int, 2> fds{};
  if (::pipe2(fds.data(), O_CLOEXEC) != 0) return {};  // cannot tell: let the program run
  const pid_t pid = ::fork();
  if (pid < 0) {
    ::close(fds[0]);
    ::close(fds[1]);
    return {};
  }
  if (pid == 0) {
    // The child only loads and reports: its libcupti, loaded or not, never reaches memfloor.
    ::close(fds[0]);
    if (::dlopen(hook.c_str(), RTLD_LAZY | RTLD_LOCAL) != nullptr) ::_exit(0);
    const char* why = ::dlerror();
    if (why != nullptr && ::write(fds[1], why, std::strlen(why)) < 0) ::_exit(1);
    ::_exit(1);
  }
  ::close(fds[1]);
  std::string error;
  std::array<char, kReadChunk> buffer{};
  for (ssize_t n; (n = ::read(fds[0], buffer.data(), buffer.size())) != 0;) {
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) break;
    error.append(buffer.data(), static_cast<size_t>(n));
  }
  ::close(fds[0]);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return {};
  return error.empty() ? "it could not be loaded" : error;
}

std::string hookLoadAdvice(const std::string& hook, const std::string& error) {
  std::string advice =
      fmt::format("{} cannot be loaded here, so CUDA programs run untraced: {}", hook, error);
  if (error.find("libcupti") != std::string::npos) {
    advice +=
        ". CUPTI comes with the CUDA toolkit (NVIDIA's cuda-cupti-<version> package, or pip's "
        "nvidia-cuda-cupti); put the folder that holds libcupti on LD_LIBRARY_PATH (for example "
        "/usr/local/cuda/extras/CUPTI/lib64 or /usr/local/cuda/targets/x86_64-linux/lib)";
  }
  return advice;
}

}  // namespace memfloor::cli
