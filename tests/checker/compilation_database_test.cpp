// Tests of the strict compilation database lookup: a database that is named or found and does not
// load is an error that names it, never a check "without flags".
#include "checker/cpp/compilation_database.h"

#include <clang/Tooling/CompilationDatabase.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "common/error.h"

namespace memfloor::checker {
namespace {

namespace fs = std::filesystem;

fs::path scratch(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / ("memfloor-database-test-" + name);
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

void writeDatabase(const fs::path& dir) {
  std::ofstream(dir / "compile_commands.json")
      << R"([{"directory": ")" << dir.string()
      << R"(", "file": "a.cpp", "arguments": ["c++", "-std=c++17", "-c", "a.cpp"]}])";
}

TEST_CASE("A build directory's compile_commands.json is loaded, also from below it", "[database]") {
  const fs::path dir = scratch("good");
  writeDatabase(dir);
  const auto database = loadCompilationDatabase(dir.string());
  REQUIRE(database != nullptr);
  CHECK(database->getAllFiles() == std::vector<std::string>{(dir / "a.cpp").string()});
  fs::create_directories(dir / "sub");  // -p build/sub finds build/, as clang's tools do
  CHECK(loadCompilationDatabase((dir / "sub").string())->getAllFiles().size() == 1);
  CHECK(findCompilationDatabase((dir / "sub" / "b.cpp").string()) != nullptr);
}

TEST_CASE("A build directory that does not exist or is a file is named", "[database]") {
  const fs::path dir = scratch("missing");
  CHECK_THROWS_WITH(
      loadCompilationDatabase((dir / "nonexistent" / "build").string()),
      "-p " + (dir / "nonexistent" / "build").string() + ": No such file or directory");
  std::ofstream(dir / "file");
  CHECK_THROWS_WITH(loadCompilationDatabase((dir / "file").string()),
                    "-p " + (dir / "file").string() + ": not a directory");
}

TEST_CASE("A compile_commands.json that cannot be read or is not a database is named",
          "[database]") {
  // The tests run as root, whom file modes do not stop: a directory is what cannot be read.
  const fs::path unreadable = scratch("unreadable");
  fs::create_directories(unreadable / "compile_commands.json");
  CHECK_THROWS_WITH(loadCompilationDatabase(unreadable.string()),
                    Catch::StartsWith((unreadable / "compile_commands.json").string() +
                                      ": not a usable compilation database: "));
  const fs::path garbage = scratch("garbage");
  std::ofstream(garbage / "compile_commands.json") << "{ this is not JSON";
  CHECK_THROWS_WITH(loadCompilationDatabase(garbage.string()),
                    Catch::StartsWith((garbage / "compile_commands.json").string() +
                                      ": not a usable compilation database: "));
  // Found from a source, the same file is an error too (LLVM would look further up).
  CHECK_THROWS_WITH(findCompilationDatabase((garbage / "a.cpp").string()),
                    Catch::Contains("compile_commands.json: not a usable compilation database"));
  // One line, for `memfloor-check: error: ...`.
  try {
    loadCompilationDatabase(garbage.string());
  } catch (const Error& e) {
    CHECK(std::string(e.what()).find('\n') == std::string::npos);
  }
}

TEST_CASE("A build directory or a source with no database above it is an error", "[database]") {
  const fs::path dir = scratch("none");
  CHECK_THROWS_WITH(loadCompilationDatabase(dir.string()),
                    Catch::Contains("no compilation database (compile_commands.json) in " +
                                    dir.string() + " or above it"));
  CHECK_THROWS_WITH(findCompilationDatabase((dir / "a.cpp").string()),
                    Catch::Contains("no compilation database (compile_commands.json) for " +
                                    (dir / "a.cpp").string()));
}

}  // namespace
}  // namespace memfloor::checker
