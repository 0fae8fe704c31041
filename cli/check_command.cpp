// memfloor check: hands every argument to memfloor-check, the source checker (docs/checker.md).
// memfloor does not link LLVM: the checker is its own binary, found next to this one and exec'd,
// so its output, exit code and signals are its own.
#include "cli/check_command.h"

#include <fmt/core.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "cli/command.h"
#include "common/error.h"
#include "common/parts.h"
#include "common/process.h"

namespace memfloor::cli {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view kChecker = "memfloor-check";

// Where the checker is looked for, in order: memfloor's own parts (common/parts.h: next to the
// running memfloor when installed, build/checker/ in the build tree), then PATH.
struct Search {
  std::vector<fs::path> places;  // memfloor-check where memfloor's parts are
  std::string path_env;

  static Search fromEnvironment() {
    Search s;
    s.places = common::partCandidates(common::Part::kChecker, common::selfDir());
    const char* path = std::getenv("PATH");
    s.path_env = path != nullptr ? path : "";
    return s;
  }

  std::string find() const {
    for (const fs::path& place : places) {
      if (common::holdsPart(common::Part::kChecker, place)) return place.string();
    }
    if (path_env.empty()) return "";
    return common::findProgramByName(kChecker, path_env);
  }

  std::string describe() const {
    std::string out;
    for (const fs::path& place : places) out += place.parent_path().string() + ", ";
    return out + (path_env.empty() ? "PATH (empty)" : fmt::format("PATH ({})", path_env));
  }
};

}  // namespace

std::string findChecker() { return Search::fromEnvironment().find(); }

int runCheckCommand(const std::vector<std::string>& args) {
  const Search search = Search::fromEnvironment();
  const std::string checker = search.find();
  if (checker.empty()) {
    throw Error(
        fmt::format("{} not found (looked in {}); build it with "
                    "-DMEMFLOOR_BUILD_CHECKER=ON or put it on PATH",
                    kChecker, search.describe()));
  }
  std::vector<char*> argv;
  argv.push_back(const_cast<char*>(checker.c_str()));
  for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  std::fflush(nullptr);
  ::execv(checker.c_str(), argv.data());
  throw Error(fmt::format("{}: cannot run: {}", checker, std::strerror(errno)));
}

void addCheckCommand(CLI::App& app, int& exit_code) {
  CLI::App* cmd = app.add_subcommand(
      "check",
      "Run memfloor-check, the source checker, with these arguments (memfloor check --help: its "
      "options)");
  // Everything after `check` belongs to the checker: no options of our own, not even --help, and
  // the first argument CLI11 does not know ends parsing. main() hands the arguments over before
  // CLI11 sees them (CLI11 would drop a leading `--`); this callback serves any other caller.
  cmd->set_help_flag();
  cmd->prefix_command();
  cmd->allow_extras();
  cmd->callback([cmd, &exit_code] { exit_code = runCheckCommand(cmd->remaining()); });
}

}  // namespace memfloor::cli
