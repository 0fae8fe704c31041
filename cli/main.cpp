// memfloor: the command line; parses the subcommand and hands over to the libraries.
#include <fmt/core.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <exception>
#include <memory>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "cli/command.h"
#include "cli/diagnostic.h"
#include "cli/help_formatter.h"
#include "cli/unknown_command.h"
#include "common/error.h"
#include "common/output_file.h"
#include "common/printable.h"
#include "common/version.h"

namespace {

// kExitOk, or kExitError with the reason when standard output lost anything.
int checked(memfloor::common::StandardOutput& standard_output) {
  try {
    standard_output.check();
    return memfloor::cli::kExitOk;
  } catch (const memfloor::Error& e) {
    memfloor::cli::printError(e.what());
    return memfloor::cli::kExitError;
  }
}

}  // namespace

int main(int argc, char** argv) {
  using namespace memfloor::cli;
  CLI::App app{"memfloor: finds GPU memory a training program keeps alive longer than it needs"};
  app.formatter(std::make_shared<HelpFormatter>());  // before the subcommands, which copy it
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
    // CLI11 would take a mistyped command for an argument and say only that one is required.
    checkCommandWords(app, std::vector<std::string>(argv + 1, argv + argc));
    app.parse(argc, argv);
    // A table or an export lost to a full disk or a closed pipe is an error, not a result.
    standard_output.check();
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) {  // --help, --version: their text is the output, and lost if
      app.exit(e);                 // standard output could not take it
      return checked(standard_output);
    }
    printError(fmt::format("{} (see memfloor --help)", e.what()));
    return kExitError;
  } catch (const memfloor::Error& e) {
    printError(e.what());
    return kExitError;
  } catch (const std::system_error& e) {
    // fmt::print's failed write: to standard output where stdio says so, with the system's reason.
    if (std::ferror(stdout) != 0) {
      printError("standard output: cannot write: " + e.code().message());
    } else {
      printError(e.what());
    }
    return kExitError;
  } catch (const std::exception& e) {
    fmt::print(stderr, "memfloor: internal error: {}\n", memfloor::common::printable(e.what()));
    return kExitError;
  }
  return exit_code;
}
