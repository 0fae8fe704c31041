// Tests of cli/hook_check: a library that loads, files that do not, and the advice for a missing
// libcupti.
#include "cli/hook_check.h"

#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <string>

namespace memfloor::cli {
namespace {

namespace fs = std::filesystem;
using Catch::Matchers::Contains;

TEST_CASE("A library that loads gives no error; one that cannot, the loader's reason",
          "[hook_check]") {
  CHECK(hookLoadError("libm.so.6").empty());
  const fs::path bad =
      fs::temp_directory_path() / ("memfloor_hook_check_" + std::to_string(::getpid()) + ".so");
  std::ofstream(bad) << "not a library";
  CHECK_THAT(hookLoadError(bad.string()), Contains(bad.string()));
  fs::remove(bad);
  CHECK_THAT(hookLoadError("/nonexistent/libmemfloor_hook.so"),
             Contains("/nonexistent/libmemfloor_hook.so") && Contains("No such file"));
}

TEST_CASE("A missing libcupti is named with what to install and set", "[hook_check]") {
  const std::string advice =
      hookLoadAdvice("/p/lib/memfloor/libmemfloor_hook.so",
                     "libcupti.so.13: cannot open shared object file: No such file or directory");
  CHECK_THAT(advice, Contains("/p/lib/memfloor/libmemfloor_hook.so cannot be loaded here") &&
                         Contains("libcupti.so.13: cannot open") && Contains("LD_LIBRARY_PATH") &&
                         Contains("CUDA toolkit"));
  CHECK_THAT(hookLoadAdvice("/h.so", "invalid ELF header"),
             !Contains("LD_LIBRARY_PATH") && Contains("invalid ELF header"));
}

}  // namespace
}  // namespace memfloor::cli
