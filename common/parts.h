// Where memfloor's binaries find their parts: relative to their own location, in an install tree
// or in the build tree, with no environment variable.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace memfloor::common {

// What memfloor and memfloor-check load or run besides themselves.
enum class Part {
  kHook,           // libmemfloor_hook.so
  kCompanion,      // the Python companion's folder (sitecustomize.py and memfloor/)
  kChecker,        // memfloor-check
  kCheckerClang,   // memfloor-check-clang: memfloor-check's C++ front end and option parser
  kCheckerPython,  // the checker's Python front end's folder (memfloor_pyfacts/)
  kDemoData,       // what `memfloor demo` reads: testdata/ and reference_model/ as in the sources
};

// Where `part` may be for a binary in `exe_dir`, in order: the install tree's place (exe_dir is
// P/bin: P/lib/memfloor, P/share/memfloor), then the build tree's (exe_dir is build/cli or
// build/checker), then beside the binary (the hook and the companion in the flat folder that
// scripts/gpu-dist.sh copies to the GPU machine). Both trees keep the demo's data in
// share/memfloor/demo (the build tree's is a link to the sources).
std::vector<std::filesystem::path> partCandidates(Part part, const std::filesystem::path& exe_dir);

// Whether `candidate` holds `part`: the file itself, or a folder with the file its user opens
// first (an empty or half-copied folder does not count).
bool holdsPart(Part part, const std::filesystem::path& candidate);

// The first candidate that holds `part` (canonical), or an empty path when none does.
std::filesystem::path findPart(Part part, const std::filesystem::path& exe_dir);

// The folder of the running binary (/proc/self/exe); empty when it cannot be read.
std::filesystem::path selfDir();

// "'a' or 'b'": the candidates, for a message saying where `part` was looked for.
std::string describeCandidates(Part part, const std::filesystem::path& exe_dir);

}  // namespace memfloor::common
