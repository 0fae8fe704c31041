// How a subcommand plugs into the memfloor command line.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

namespace memfloor::cli {

// Exit codes shared by every subcommand.
inline constexpr int kExitOk = 0;
inline constexpr int kExitFinding = 1;  // the gate found a regression
inline constexpr int kExitError = 2;    // unusable input or arguments

// An output path's check: an empty path (an unset variable in `-o "$OUT"`) names no file, and
// writing nothing there would pass as a success with no output. It adds nothing to the option's
// type in the help (the option names it: FILE, DIR).
inline CLI::Validator nonEmptyPath() {
  return CLI::Validator(
      [](const std::string& path) {
        return path.empty() ? std::string("an empty path names no file (is a variable unset?)")
                            : std::string();
      },
      "");
}

// Each command file defines one add*Command(app, exit_code): it registers its subcommand, options
// and a callback that runs it and stores its exit code. Errors are thrown as memfloor::Error and
// mapped to kExitError by main.
using CommandAdder = void (*)(CLI::App& app, int& exit_code);

void addAnalyzeCommand(CLI::App& app, int& exit_code);
void addTraceCommand(CLI::App& app, int& exit_code);
void addRunCommand(CLI::App& app, int& exit_code);
void addGateCommand(CLI::App& app, int& exit_code);
void addReportCommand(CLI::App& app, int& exit_code);
void addCheckCommand(CLI::App& app, int& exit_code);
void addExportCommand(CLI::App& app, int& exit_code);
void addDemoCommand(CLI::App& app, int& exit_code);

// memfloor check: execs memfloor-check with `args` verbatim; returns only by throwing
// memfloor::Error (checker not found, or not runnable).
int runCheckCommand(const std::vector<std::string>& args);

}  // namespace memfloor::cli
