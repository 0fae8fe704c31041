// The lines memfloor writes to stderr about its own work.
#include "cli/diagnostic.h"

#include <fmt/core.h>

#include <cstdio>

#include "common/printable.h"

namespace memfloor::cli {

void printWarning(std::string_view message) {
  fmt::print(stderr, "memfloor: warning: {}\n", common::printable(message));
}

void printError(std::string_view message) {
  fmt::print(stderr, "memfloor: error: {}\n", common::printable(message));
}

}  // namespace memfloor::cli
