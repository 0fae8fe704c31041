// The memfloor version string, from CMake's project version.
#pragma once

#include <string_view>

namespace memfloor::cli {
inline constexpr std::string_view kVersion = MEMFLOOR_VERSION;
}
