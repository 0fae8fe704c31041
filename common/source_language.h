// Which language a source file is written in, by its name: the checker writes Python fix-its and
// reads Python idioms in .py and .pyi files; the report links a Python finding to the holders a
// Python process's census names (a C++ finding names no Python object).
#pragma once

#include <string_view>

namespace memfloor::common {

inline bool isPythonSource(std::string_view file) {
  return file.ends_with(".py") || file.ends_with(".pyi");
}

}  // namespace memfloor::common
