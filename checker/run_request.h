// One memfloor-check run as its options ask for it, from the facts to the exit code, and the
// command lines that need no Clang: memfloor-check serves those itself and hands every other one
// (C++ sources, a compilation database, `--`, --help) to memfloor-check-clang unchanged.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "checker/config.h"
#include "checker/facts.h"

namespace memfloor::checker {

// memfloor-check's options (docs/checker.md), as parsed; the C++ front end's (-p, --extra-arg,
// what follows `--`) stay with the Clang binary's parser.
struct RunRequest {
  std::string format = "text";
  std::string config_path;
  std::string baseline;
  bool fix = false;
  unsigned jobs = 1;
  std::string root;
  std::string emit_facts;
  std::vector<std::string> load_facts;
  std::string python = "python3";
  std::vector<std::string> excludes;
  std::vector<std::string> python_inputs;
  std::vector<std::string> cpp_files;  // the C++ sources, for where the configuration is looked up
};

// The C++ front end's facts under `config`; units that failed are appended to `unit_errors`.
using CppFacts = std::function<Facts(const Config& config, std::vector<std::string>& unit_errors)>;

// The run: configuration, C++ facts (`cpp`, when request.cpp_files is not empty), Python facts,
// then finishCheck. Prints the findings and the summary, and errors as one line
// "memfloor-check: error: ..."; returns the exit code (checker.h's finishCheck, 2 on an error).
int runCheck(const RunRequest& request, const CppFacts& cpp);

// The request of a command line (argv[0] first) that needs no Clang: Python inputs or --facts
// documents, and only memfloor-check's own options, each written once (lists aside) in a form
// LLVM's option parser reads the same way: `-name`/`--name`, the value after `=` or as the next
// argument. nullopt for any other command line, which memfloor-check-clang parses, runs or
// refuses with the same words as always: a C++ source, a path that is neither a Python file nor
// a directory, `--`, `@file`, an option of the C++ front end's, of LLVM's (--help, --version) or
// unknown, a value LLVM would read otherwise (`-j 010`) or refuse, an option given twice.
std::optional<RunRequest> requestWithoutClang(const std::vector<std::string>& argv);

}  // namespace memfloor::checker
