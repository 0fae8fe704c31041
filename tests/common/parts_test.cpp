// Tests of common/parts: each part found in an install tree and in a build tree laid out as
// cmake/MemfloorInstall.cmake and the build lay them out, and not found in folders without it.
#include "common/parts.h"

#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <string>

namespace memfloor::common {
namespace {

namespace fs = std::filesystem;
using Catch::Matchers::Contains;

struct TempDir {
  fs::path path = fs::weakly_canonical(fs::temp_directory_path()) /
                  ("memfloor_parts_test_" + std::to_string(::getpid()));
  TempDir() { fs::create_directories(path); }
  ~TempDir() { fs::remove_all(path); }
  // Writes `relative` (and its folders); an executable when asked.
  fs::path file(const std::string& relative, bool executable = false) const {
    const fs::path p = path / relative;
    fs::create_directories(p.parent_path());
    std::ofstream(p) << "x\n";
    if (executable) ::chmod(p.c_str(), S_IRWXU);
    return p;
  }
};

TEST_CASE("An install tree: every part relative to P/bin", "[parts]") {
  TempDir t;
  t.file("P/bin/memfloor", true);
  t.file("P/bin/memfloor-check", true);
  t.file("P/lib/memfloor/libmemfloor_hook.so");
  t.file("P/share/memfloor/companion/sitecustomize.py");
  t.file("P/share/memfloor/checker-python/memfloor_pyfacts/main.py");
  t.file("P/share/memfloor/demo/testdata/model/findings.json");
  const fs::path bin = t.path / "P" / "bin";
  CHECK(findPart(Part::kHook, bin) == t.path / "P/lib/memfloor/libmemfloor_hook.so");
  CHECK(findPart(Part::kCompanion, bin) == t.path / "P/share/memfloor/companion");
  CHECK(findPart(Part::kChecker, bin) == t.path / "P/bin/memfloor-check");
  CHECK(findPart(Part::kCheckerPython, bin) == t.path / "P/share/memfloor/checker-python");
  CHECK(findPart(Part::kDemoData, bin) == t.path / "P/share/memfloor/demo");
}

TEST_CASE("A build tree: the parts where the build puts them", "[parts]") {
  TempDir t;
  t.file("build/cli/memfloor", true);
  t.file("build/runtime_hook/libmemfloor_hook.so");
  t.file("build/companion/sitecustomize.py");
  t.file("build/checker/memfloor-check", true);
  t.file("build/checker/python/memfloor_pyfacts/main.py");
  t.file("src/testdata/model/findings.json");
  fs::create_directories(t.path / "build/share/memfloor");
  fs::create_directory_symlink(t.path / "src", t.path / "build/share/memfloor/demo");
  const fs::path cli = t.path / "build" / "cli";
  CHECK(findPart(Part::kHook, cli) == t.path / "build/runtime_hook/libmemfloor_hook.so");
  CHECK(findPart(Part::kCompanion, cli) == t.path / "build/companion");
  CHECK(findPart(Part::kChecker, cli) == t.path / "build/checker/memfloor-check");
  CHECK(findPart(Part::kDemoData, cli) == t.path / "src");  // the link, resolved
  // memfloor-check runs from build/checker, its front end next to it.
  CHECK(findPart(Part::kCheckerPython, t.path / "build" / "checker") ==
        t.path / "build/checker/python");
}

TEST_CASE("A flat folder (scripts/gpu-dist.sh): the hook and the companion beside the binary",
          "[parts]") {
  TempDir t;
  t.file("dist/memfloor", true);
  t.file("dist/libmemfloor_hook.so");
  t.file("dist/companion/sitecustomize.py");
  const fs::path dist = t.path / "dist";
  CHECK(findPart(Part::kHook, dist) == dist / "libmemfloor_hook.so");
  CHECK(findPart(Part::kCompanion, dist) == dist / "companion");
}

TEST_CASE("A folder without the file its user opens, or a checker not executable, is no part",
          "[parts]") {
  TempDir t;
  fs::create_directories(t.path / "P/share/memfloor/companion/memfloor");
  t.file("P/share/memfloor/checker-python/memfloor_pyfacts/__init__.py");
  t.file("P/bin/memfloor-check");
  const fs::path bin = t.path / "P" / "bin";
  CHECK(findPart(Part::kCompanion, bin).empty());
  CHECK(findPart(Part::kCheckerPython, bin).empty());
  CHECK(findPart(Part::kChecker, bin).empty());
  CHECK(findPart(Part::kHook, bin).empty());
  CHECK_FALSE(holdsPart(Part::kCompanion, t.path / "P/share/memfloor/companion"));
}

TEST_CASE("The candidates: install place first, named in messages; none without a folder",
          "[parts]") {
  const std::vector<fs::path> hook = partCandidates(Part::kHook, "/opt/mf/bin");
  REQUIRE(hook.size() == 3);
  CHECK(hook[0] == "/opt/mf/lib/memfloor/libmemfloor_hook.so");
  CHECK(hook[1] == "/opt/mf/runtime_hook/libmemfloor_hook.so");
  CHECK(hook[2] == "/opt/mf/bin/libmemfloor_hook.so");
  CHECK_THAT(describeCandidates(Part::kCompanion, "/opt/mf/bin"),
             Contains("'/opt/mf/share/memfloor/companion' or '/opt/mf/companion'"));
  CHECK(partCandidates(Part::kHook, "").empty());  // never relative to the working directory
  CHECK(findPart(Part::kDemoData, "").empty());
}

TEST_CASE("The running binary's folder is read from /proc/self/exe", "[parts]") {
  const fs::path dir = selfDir();
  REQUIRE_FALSE(dir.empty());
  CHECK(fs::exists(dir / fs::read_symlink("/proc/self/exe").filename()));
}

}  // namespace
}  // namespace memfloor::common
