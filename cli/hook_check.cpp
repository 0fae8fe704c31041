// Loads the hook in a child process to find a missing libcupti before the program runs untraced.
#include "cli/hook_check.h"

#include <dlfcn.h>
#include <fmt/core.h>

#include <cstring>

#include "common/process.h"
#include "common/write_all.h"

namespace memfloor::cli {

std::string hookLoadError(const std::string& hook) {
  common::Pipe report;
  if (!report.open()) return {};  // cannot tell: let the program run
  common::Process child = common::startFunction([&] {
    // The child only loads and reports: its libcupti, loaded or not, never reaches memfloor.
    report.read.reset();
    if (::dlopen(hook.c_str(), RTLD_LAZY | RTLD_LOCAL) != nullptr) return 0;
    const char* why = ::dlerror();
    if (why != nullptr) common::writeAll(report.write.get(), why, std::strlen(why));
    return 1;
  });
  report.write.reset();
  if (!child.started()) return {};
  std::string error;
  common::readUntilEnd(report.read.get(), [&](std::string_view data) { error += data; });
  if (child.wait().exit_code == 0) return {};
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
