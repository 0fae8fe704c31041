// Shipped files (testdata/, docs/, README.md) name no absolute path of a build machine.
#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;

// Where paths of a build or work machine begin: this checkout (CMake's PROJECT_SOURCE_DIR), work,
// home and scratch directories. A plain byte search, so binary traces count (their strings are
// stored as raw bytes) and so would a URL with "/home/" in it. System paths (/usr, /lib, /opt) and
// relative paths are fine. Make a shipped file neutral with `memfloor trace symbolize
// --prefix-map OLD=NEW` (traces), the golden scripts (reports made from them), or by hand.
std::vector<std::string> machinePathPrefixes() {
  return {std::string(MEMFLOOR_SOURCE_DIR) + "/", "/work/", "/root/", "/home/", "/tmp/"};
}

std::vector<fs::path> shippedFiles() {
  const fs::path root(MEMFLOOR_SOURCE_DIR);
  std::vector<fs::path> files = {root / "README.md"};
  for (const char* dir : {"testdata", "docs"}) {
    for (const fs::directory_entry& entry : fs::recursive_directory_iterator(root / dir)) {
      if (entry.is_regular_file()) files.push_back(entry.path());
    }
  }
  return files;
}

// The path at `offset` up to the first byte that cannot be part of it, for the message.
std::string pathAt(const std::string& bytes, size_t offset) {
  size_t end = offset;
  while (end < bytes.size() && end - offset < 120 && bytes[end] > ' ' && bytes[end] < 127 &&
         bytes[end] != '"') {
    ++end;
  }
  return bytes.substr(offset, end - offset);
}

}  // namespace

TEST_CASE("no shipped file names an absolute path of the machine it was made on") {
  std::vector<fs::path> files = shippedFiles();
  REQUIRE(files.size() > 10);
  size_t found = 0;
  for (const fs::path& file : files) {
    std::ifstream in(file, std::ios::binary);
    REQUIRE(in);
    const std::string bytes{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    size_t in_file = 0;
    size_t first = std::string::npos;
    for (const std::string& prefix : machinePathPrefixes()) {
      for (size_t at = bytes.find(prefix); at != std::string::npos;
           at = bytes.find(prefix, at + 1)) {
        ++in_file;
        first = std::min(first, at);
      }
    }
    if (in_file > 0) {
      FAIL_CHECK(fs::relative(file, MEMFLOOR_SOURCE_DIR).string()
                 << ": " << in_file << " absolute paths, the first at byte " << first << ": "
                 << pathAt(bytes, first));
    }
    found += in_file;
  }
  CHECK(found == 0);
}
