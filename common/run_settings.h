// The settings `memfloor run` hands the program it starts, as environment variables: the one
// contract between run (cli/run_command.cpp, which sets them), the hook (runtime_hook/config.cpp)
// and the Python companion (companion/memfloor/run_settings.py, held to this list by
// tests/python/test_run_settings.py). A program started without `memfloor run` may set them itself
// (docs/runtime-hook.md); no part reads a MEMFLOOR_ variable that is not named here.
#pragma once

#include <array>
#include <string_view>

namespace memfloor::run_settings {

// Read by the hook and the companion.
inline constexpr const char* kOutputDir = "MEMFLOOR_OUTPUT_DIR";  // where the traces go
inline constexpr const char* kStacks = "MEMFLOOR_STACKS";         // one of kStackModes
inline constexpr const char* kFlushMs = "MEMFLOOR_FLUSH_MS";      // how often records are written
inline constexpr const char* kVerbose = "MEMFLOOR_VERBOSE";       // "1": say what is done

// Read by the hook.
inline constexpr const char* kBufferSize = "MEMFLOOR_BUFFER_SIZE";  // CUPTI's buffers: 64k..256m
inline constexpr const char* kStackDepth = "MEMFLOOR_STACK_DEPTH";  // frames kept: 1..512
// Marker names that are iterations (RE2, case-insensitive, full match), recorded in the trace as
// the property hook.iteration_pattern.
inline constexpr const char* kIterationPattern = "MEMFLOOR_ITERATION_PATTERN";

// Read by the companion.
inline constexpr const char* kCensus = "MEMFLOOR_CENSUS";  // one of kCensusModes, or steps "2,10"
inline constexpr const char* kCensusDevice = "MEMFLOOR_CENSUS_DEVICE";  // the census's device
// The iteration pattern again, for the NVTX ranges a census waits out (the companion's own copy:
// a user's MEMFLOOR_ITERATION_PATTERN is the hook's).
inline constexpr const char* kCensusRanges = "MEMFLOOR_CENSUS_RANGES";
inline constexpr const char* kIterationDomain = "MEMFLOOR_ITERATION_DOMAIN";  // their NVTX domain
inline constexpr const char* kModules = "MEMFLOOR_MODULES";           // "1": module paths at peaks
inline constexpr const char* kSteps = "MEMFLOOR_STEPS";               // "0": no training steps
inline constexpr const char* kTorchBlocks = "MEMFLOOR_TORCH_BLOCKS";  // "0": no allocator blocks

// Read by `memfloor run` itself: where its parts are, instead of next to the binary.
inline constexpr const char* kHookPath = "MEMFLOOR_HOOK";
inline constexpr const char* kCompanionDir = "MEMFLOOR_PYTHON_DIR";

// The values of kStacks and of `memfloor run --stacks`, and the named values of kCensus.
inline constexpr std::array<std::string_view, 4> kStackModes{"auto", "python", "native", "none"};
inline constexpr std::array<std::string_view, 3> kCensusModes{"auto", "every", "off"};

}  // namespace memfloor::run_settings
