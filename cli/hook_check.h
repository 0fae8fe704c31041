// Whether the hook can be loaded where `memfloor run` starts the program: CUPTI (libcupti) is the
// user's, from the CUDA toolkit, and without it the driver cannot load the hook and says nothing.
#pragma once

#include <string>

namespace memfloor::cli {

// Loads `hook` in a child process, as the CUDA driver will in the traced program (same
// environment, so the same LD_LIBRARY_PATH): "" when it loads, else the loader's reason.
std::string hookLoadError(const std::string& hook);

// What to tell the user about `error` (from hookLoadError): the reason and, where a library is
// missing, what to install or set.
std::string hookLoadAdvice(const std::string& hook, const std::string& error);

}  // namespace memfloor::cli
