// memfloor: the command line; parses the subcommand and hands over to the libraries.
#include <fmt/core.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <exception>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "cli/command.h"
#include "common/error.h"
#include "common/output_file.h"
#include "common/version.h"

int main(int argc, char** argv) {
  using namespace memfloor::cli;
  CLI::App app{"memfloor: finds GPU memory a training program keeps alive longer than it needs"};
  app.set_version_flag("--version", std::string(memfloor::kVersion));
  app.require_subcommand(1);
  int exit_code = kExitOk;
  for (CommandAdder add : {addAnalyzeCommand, addTraceCommand, addRunCommand, addGateCommand,
                           addReportCommand, addCheckCommand, addExportCommand, addDemoCommand}) {
    add(app, exit_code);
  }
  memfloor::common::StandardOutput standard_output;
  try {
    // `check` hands its arguments to memfloor-check verbatim, before CLI11 could drop a `--`.
    if (argc > 1 && std::string_view(argv[1]) == "check") {
      return runCheckCommand(std::vector<std::string>(argv + 2, argv + argc));
    }
    app.parse(argc, argv);
    // A table or an export lost to a full disk or a closed pipe is an error, not a result.
    standard_output.check();
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help, --version
    fmt::print(stderr, "memfloor: error: {} (see memfloor --help)\n", e.what());
    return kExitError;
  } catch (const memfloor::Error& e) {
    fmt::print(stderr, "memfloor: error: {}\n", e.what());
    return kExitError;
  } catch (const std::system_error& e) {
    // fmt::print's failed write: to standard output where stdio says so, with the system's reason.
    if (std::ferror(stdout) != 0) {
      fmt::print(stderr, "memfloor: error: standard output: cannot write: {}\n",
                 e.code().message());
    } else {
      fmt::print(stderr, "memfloor: error: {}\n", e.what());
    }
    return kExitError;
  } catch (const std::exception& e) {
    fmt::print(stderr, "memfloor: internal error: {}\n", e.what());
    return kExitError;
  }
  return exit_code;
}
