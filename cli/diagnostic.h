// The lines memfloor writes about its own work: "memfloor: warning: ..." and "memfloor: error:
// ..." on stderr, and "memfloor: wrote FILE (N KiB)" on stdout for each file a command wrote; each
// one line with its control bytes escaped (common/printable.h): the paths, names and tokens in them
// come from files, directories and arguments.
#pragma once

#include <cstdio>
#include <string_view>

namespace memfloor::cli {

void printWarning(std::string_view message);
void printError(std::string_view message);

// "memfloor: wrote FILE (N KiB)", then `detail` where given (": 3 of 4 native frames resolved"),
// on `out`: said by every command of each file it wrote, once the file is in place (its size is
// read from it). Nothing is said of standard output (`-o -`): what was written is there.
void printWritten(std::string_view path, std::string_view detail = "", std::FILE* out = stdout);

}  // namespace memfloor::cli
