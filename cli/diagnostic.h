// The lines memfloor writes to stderr about its own work: "memfloor: warning: ..." and
// "memfloor: error: ...", each one line with its control bytes escaped (common/printable.h): the
// paths, names and tokens in them come from files, directories and arguments.
#pragma once

#include <string_view>

namespace memfloor::cli {

void printWarning(std::string_view message);
void printError(std::string_view message);

}  // namespace memfloor::cli
