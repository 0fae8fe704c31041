// Finds and loads the compilation database of a check, strictly: one that is named or found and
// does not load is an error (LLVM's tools run "without flags" instead).
#pragma once

#include <memory>
#include <string>

namespace clang::tooling {
class CompilationDatabase;
}

namespace memfloor::checker {

// The database of build directory `dir` (-p DIR): the first of `dir` and its parents that holds one
// (compile_commands.json, compile_flags.txt), as clang's tools look. Throws Error when `dir` is no
// directory, when there is none, or when the compile_commands.json found does not load (unreadable,
// not JSON, not a list of commands): the message names the directory or the file.
std::unique_ptr<clang::tooling::CompilationDatabase> loadCompilationDatabase(
    const std::string& dir);

// The database clang's tools use for `source` when no -p is given: the first found from the
// source's directory up. Throws Error as above.
std::unique_ptr<clang::tooling::CompilationDatabase> findCompilationDatabase(
    const std::string& source);

}  // namespace memfloor::checker
