// The compilation database lookup of clang's tools (a directory and its parents), where a
// database that is there but does not load stops the check.
#include "checker/cpp/compilation_database.h"

#include <clang/Tooling/CompilationDatabase.h>
#include <clang/Tooling/JSONCompilationDatabase.h>
#include <llvm/ADT/SmallString.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/Path.h>

#include <algorithm>
#include <system_error>

#include "common/error.h"

namespace memfloor::checker {
namespace {

namespace fs = llvm::sys::fs;
using clang::tooling::CompilationDatabase;

// LLVM's messages end in newlines and may span lines; one line for `tool: error: ...`.
std::string oneLine(std::string message) {
  while (!message.empty() && (message.back() == '\n' || message.back() == ' ')) message.pop_back();
  std::replace(message.begin(), message.end(), '\n', ' ');
  return message;
}

// The database in `dir` itself, or null when it holds none. A compile_commands.json there (a file
// or anything else of that name) must load: LLVM would skip it and look further up.
std::unique_ptr<CompilationDatabase> loadFromDirectory(llvm::StringRef dir) {
  llvm::SmallString<256> json(dir);
  llvm::sys::path::append(json, "compile_commands.json");
  std::string error;
  if (fs::exists(json)) {
    auto database = clang::tooling::JSONCompilationDatabase::loadFromFile(
        json, error, clang::tooling::JSONCommandLineSyntax::AutoDetect);
    if (!database) {
      throw Error(json.str().str() + ": not a usable compilation database: " + oneLine(error));
    }
    return database;
  }
  return CompilationDatabase::loadFromDirectory(dir, error);  // compile_flags.txt, plugins
}

std::unique_ptr<CompilationDatabase> findFrom(llvm::StringRef start, const std::string& what) {
  for (llvm::StringRef dir = start; !dir.empty(); dir = llvm::sys::path::parent_path(dir)) {
    if (auto database = loadFromDirectory(dir)) return database;
  }
  throw Error("no compilation database (compile_commands.json) " + what);
}

llvm::SmallString<256> absolute(const std::string& path) {
  llvm::SmallString<256> out(path);
  fs::make_absolute(out);
  llvm::sys::path::remove_dots(out, /*remove_dot_dot=*/true);
  return out;
}

}  // namespace

std::unique_ptr<CompilationDatabase> loadCompilationDatabase(const std::string& dir) {
  const llvm::SmallString<256> path = absolute(dir);
  fs::file_status status;
  if (const std::error_code error = fs::status(path, status)) {
    throw Error("-p " + dir + ": " + error.message());
  }
  if (!fs::is_directory(status)) throw Error("-p " + dir + ": not a directory");
  return findFrom(path, "in " + dir + " or above it (-p names the build directory that holds it)");
}

std::unique_ptr<CompilationDatabase> findCompilationDatabase(const std::string& source) {
  const llvm::SmallString<256> path = absolute(source);
  return findFrom(llvm::sys::path::parent_path(path),
                  "for " + source +
                      " in its directory or above it (name the build directory with -p BUILD_DIR, "
                      "or give compiler flags after --)");
}

}  // namespace memfloor::checker
