// memfloor check: where the memfloor-check binary is (for commands that run it, like the demo).
#pragma once

#include <string>

namespace memfloor::cli {

// memfloor-check next to the running memfloor, in ../checker/ (the build tree), then on PATH;
// "" when none is there.
std::string findChecker();

}  // namespace memfloor::cli
