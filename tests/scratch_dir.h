// A test's scratch directory: <tmp>/memfloor_<tag>_<pid>, emptied when made and removed with the
// test, with the names of the files in it and a way to write one. A test file that needs more
// (a listing, binary contents) derives from it.
#pragma once

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <system_error>

namespace memfloor::testing {

class ScratchDir {
 public:
  explicit ScratchDir(const std::string& tag)
      : path(std::filesystem::temp_directory_path() /
             ("memfloor_" + tag + "_" + std::to_string(::getpid()))) {
    std::filesystem::remove_all(path);
    std::filesystem::create_directories(path);
  }
  ~ScratchDir() {
    std::error_code ignored;  // a destructor must not throw
    std::filesystem::remove_all(path, ignored);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;

  // The path of `name` in the directory.
  std::string file(const std::string& name) const { return (path / name).string(); }
  // Writes `bytes` to `name` in the directory; its path.
  std::string write(const std::string& name, const std::string& bytes) const {
    std::ofstream(path / name, std::ios::binary) << bytes;
    return file(name);
  }

  const std::filesystem::path path;
};

}  // namespace memfloor::testing
