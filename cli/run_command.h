// memfloor run: runs a program under the CUPTI hook, one trace per process in a directory.
#pragma once

#include <string>
#include <vector>

#include "symbols/site_namer.h"

namespace memfloor::cli {

struct RunRequest {
  std::vector<std::string> command;  // the program and its arguments
  std::string output_dir = "memfloor-out";
  std::string stacks = "auto";    // auto | python | native | none
  std::string iteration_pattern;  // empty: the analysis default
  std::string iteration_domain;   // empty: NVTX's default domain
  std::string buffer_size;        // empty: the hook's default (8m)
  std::string torch_allocator;    // empty | async | native
  std::string census = "auto";    // auto | every | off | optimizer steps ("2,10")
  std::string hook_path;          // empty: MEMFLOOR_HOOK, then next to the executable
  bool companion = true;          // the Python companion (companion/memfloor/) in Python processes
  bool modules = false;           // the companion records module paths (MEMFLOOR_MODULES=1)
  std::string companion_dir;      // where it is (runTraced finds it; empty: none)
  bool analyze = false;
  symbols::SitePatterns site_patterns;  // for --analyze
  bool quiet = false;
};

// The environment the traced program gets: `base` ("NAME=value" entries) with the injection
// variables set. `notes` collects lines for the user (what was set or left alone, and why).
std::vector<std::string> tracedEnvironment(const RunRequest& request, const std::string& hook,
                                           const std::string& output_dir,
                                           const std::vector<std::string>& base,
                                           std::vector<std::string>& notes);

// Finds libmemfloor_hook.so: the explicit path, $MEMFLOOR_HOOK, then where the memfloor binary's
// parts are (common/parts.h: ../lib/memfloor installed, ../runtime_hook in the build tree). Empty
// if none exists.
std::string findHook(const std::string& explicit_path);

// The folder holding the Python companion (sitecustomize.py and memfloor/): $MEMFLOOR_PYTHON_DIR,
// then where the memfloor binary's parts are (common/parts.h: ../share/memfloor/companion
// installed, ../companion in the build tree). Empty if none exists.
std::string findCompanion();

// Runs the request; returns the program's exit code (128 + signal when a signal ended it), or
// kExitError when the hook is missing or the program cannot be started. Throws memfloor::Error
// for bad arguments.
int runTraced(const RunRequest& request);

}  // namespace memfloor::cli
