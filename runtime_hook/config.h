// The hook's settings, read once from the environment that `memfloor run` prepares.
#pragma once

#include <cstdint>
#include <string>

namespace memfloor::hook {

// What allocation stacks hold. kAuto: Python frames in a Python process (3.11, 3.12), with native
// return addresses under them for all calls but stream-ordered allocations; native ones alone in
// any other process; kNative: native ones, under Python frames where there are some.
enum class StackMode : uint8_t { kNone, kNative, kPython, kAuto };

// Which allocation calls take native frames.
enum class NativeFrames : uint8_t {
  kNone,
  kAllButStreamOrdered,  // rare calls (segments, VMM mappings): a walk each costs nothing there
  kAll,
};
// For a mode, in a process with (python) or without Python frames.
NativeFrames nativeFramesFor(StackMode mode, bool python);

struct Config {
  std::string output_dir = ".";         // MEMFLOOR_OUTPUT_DIR
  StackMode stacks = StackMode::kNone;  // MEMFLOOR_STACKS=none|native|python|auto
  uint32_t buffer_bytes =
      8 * 1024 * 1024;              // MEMFLOOR_BUFFER_SIZE (bytes, k/m suffix), CUPTI buffers
  uint32_t max_stack_depth = 64;    // MEMFLOOR_STACK_DEPTH
  uint32_t flush_period_ms = 1000;  // MEMFLOOR_FLUSH_MS, ms: CUPTI delivers at least this often
  std::string iteration_pattern;    // MEMFLOOR_ITERATION_PATTERN, recorded as a property
  bool verbose = false;             // MEMFLOOR_VERBOSE=1: one stderr line with the trace path
};

// Reads the settings through get (getenv in the hook, a map in tests). Bad values fall back to
// the default and add a line to `warnings` (one line each, no trailing newline).
using GetEnv = const char* (*)(const char* name, void* context);
Config readConfig(GetEnv get, void* context, std::string& warnings);

// Parses "8388608", "512k", "8m", "1g" (binary units). False on junk, zero or overflow.
bool parseByteSize(const char* text, uint64_t& out);

// Parses a plain decimal count ("250"): digits only, no sign, space or unit. False on anything
// else and on overflow; zero is the caller's to judge.
bool parseCount(const char* text, uint64_t& out);

}  // namespace memfloor::hook
