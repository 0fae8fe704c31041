// The lines memfloor writes to stderr about its own work.
#include "cli/diagnostic.h"

#include <fmt/core.h>

#include <cstdio>
#include <filesystem>
#include <string>

#include "common/printable.h"
#include "common/units.h"

namespace memfloor::cli {

void printWarning(std::string_view message) {
  fmt::print(stderr, "memfloor: warning: {}\n", common::printable(message));
}

void printError(std::string_view message) {
  fmt::print(stderr, "memfloor: error: {}\n", common::printable(message));
}

void printWritten(std::string_view path, std::string_view detail, std::FILE* out) {
  std::error_code ec;  // a file moved away since: its size is not known, the line still said
  const uintmax_t bytes = std::filesystem::file_size(std::string(path), ec);
  const std::string size =
      ec ? std::string() : fmt::format(" ({} KiB)", (bytes + units::kKiB - 1) / units::kKiB);
  fmt::print(out, "memfloor: wrote {}{}{}\n", common::printable(path), size,
             common::printable(detail));
}

}  // namespace memfloor::cli
