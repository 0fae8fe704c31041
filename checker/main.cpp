// memfloor-check: runs the command lines that need no Clang itself (Python sources, facts
// documents), and executes memfloor-check-clang, found next to it, with every other one. It links
// no LLVM: loading LLVM's and Clang's libraries costs a run on Python sources a tenth of its time.
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include "checker/run_request.h"
#include "common/parts.h"

int main(int argc, char** argv) {
  namespace mf = memfloor::checker;
  if (const std::optional<mf::RunRequest> request =
          mf::requestWithoutClang(std::vector<std::string>(argv, argv + argc))) {
    return mf::runCheck(*request, nullptr);
  }
  const std::filesystem::path dir = memfloor::common::selfDir();
  const std::filesystem::path clang =
      memfloor::common::findPart(memfloor::common::Part::kCheckerClang, dir);
  if (!clang.empty()) {
    ::execv(clang.c_str(), argv);  // argv[0] unchanged: messages name memfloor-check
    std::cerr << "memfloor-check: error: cannot run " << clang.string() << ": "
              << std::strerror(errno) << "\n";
    return 2;
  }
  std::cerr << "memfloor-check: error: C++ sources, a compilation database and --help need "
               "memfloor-check-clang, not found at "
            << memfloor::common::describeCandidates(memfloor::common::Part::kCheckerClang, dir)
            << "\n";
  return 2;
}
