// Where memfloor's binaries find their parts: one layout table for the install and build trees.
#include "common/parts.h"

#include <system_error>

#include "common/process.h"

namespace memfloor::common {
namespace {

namespace fs = std::filesystem;

constexpr const char* kHookName = "libmemfloor_hook.so";
constexpr const char* kCheckerName = "memfloor-check";
constexpr const char* kCheckerClangName = "memfloor-check-clang";

bool isFile(const fs::path& path) {
  std::error_code ec;
  return fs::is_regular_file(path, ec);
}

}  // namespace

bool holdsPart(Part part, const fs::path& candidate) {
  switch (part) {
    case Part::kHook:
      return isFile(candidate);
    case Part::kCompanion:
      return isFile(candidate / "sitecustomize.py");
    case Part::kChecker:
    case Part::kCheckerClang:
      return isExecutableFile(candidate.string());
    case Part::kCheckerPython:
      return isFile(candidate / "memfloor_pyfacts" / "main.py");
    case Part::kDemoData:
      return isFile(candidate / "testdata" / "model" / "findings.json");
  }
  return false;
}

std::vector<fs::path> partCandidates(Part part, const fs::path& exe_dir) {
  if (exe_dir.empty()) return {};  // not relative to the working directory
  const fs::path up = exe_dir / "..";
  std::vector<fs::path> places;
  switch (part) {
    case Part::kHook:
      places = {up / "lib" / "memfloor" / kHookName, up / "runtime_hook" / kHookName,
                exe_dir / kHookName};
      break;
    case Part::kCompanion:
      places = {up / "share" / "memfloor" / "companion", up / "companion", exe_dir / "companion"};
      break;
    case Part::kChecker:
      places = {exe_dir / kCheckerName, up / "checker" / kCheckerName};
      break;
    case Part::kCheckerClang:  // beside memfloor-check, in both trees
      places = {exe_dir / kCheckerClangName};
      break;
    case Part::kCheckerPython:  // memfloor-check is build/checker/memfloor-check in a build tree
      places = {up / "share" / "memfloor" / "checker-python", exe_dir / "python"};
      break;
    case Part::kDemoData:
      places = {up / "share" / "memfloor" / "demo"};
      break;
  }
  for (fs::path& p : places) p = p.lexically_normal();
  return places;
}

fs::path findPart(Part part, const fs::path& exe_dir) {
  for (const fs::path& candidate : partCandidates(part, exe_dir)) {
    std::error_code ec;
    if (holdsPart(part, candidate)) return fs::weakly_canonical(candidate, ec);
  }
  return {};
}

fs::path selfDir() {
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  return ec ? fs::path() : self.parent_path();
}

std::string describeCandidates(Part part, const fs::path& exe_dir) {
  std::string out;
  for (const fs::path& candidate : partCandidates(part, exe_dir)) {
    out += (out.empty() ? "'" : " or '") + candidate.string() + "'";
  }
  return out;
}

}  // namespace memfloor::common
