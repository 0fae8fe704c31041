// Reads the hook's settings from the environment.
#include "runtime_hook/config.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "common/run_settings.h"
#include "common/units.h"

namespace memfloor::hook {

constexpr unsigned kMegaShift = 20;          // m, M: 2^20
constexpr unsigned kGigaShift = 30;          // g, G: 2^30
constexpr uint64_t kMaxFlushMs = 3'600'000;  // an hour

bool parseByteSize(const char* text, uint64_t& out) {
  // Digits first: strtoull would also take leading space, a sign, and a negative value wrapped
  // around (" -18446744073642442752" is 64 MiB).
  if (text == nullptr || *text < '0' || *text > '9') return false;
  errno = 0;
  char* end = nullptr;
  unsigned long long value = std::strtoull(text, &end, 10);
  if (errno != 0 || end == text) return false;
  unsigned shift = 0;
  if (*end == 'k' || *end == 'K') shift = 10;
  if (*end == 'm' || *end == 'M') shift = kMegaShift;
  if (*end == 'g' || *end == 'G') shift = kGigaShift;
  if (shift != 0) ++end;
  if (*end != '\0' || value == 0) return false;
  if (shift != 0 && value > (~0ull >> shift)) return false;
  out = value << shift;
  return true;
}

bool parseCount(const char* text, uint64_t& out) {
  if (text == nullptr || *text == '\0') return false;
  uint64_t value = 0;
  for (const char* p = text; *p != '\0'; ++p) {
    if (*p < '0' || *p > '9') return false;
    auto digit = static_cast<uint64_t>(*p - '0');
    if (value > (UINT64_MAX - digit) / 10) return false;
    value = value * 10 + digit;
  }
  out = value;
  return true;
}

namespace {

// run_settings::kStackModes as the hook's modes (tests/runtime_hook/config_test.cpp: every one).
struct StackModeName {
  StackMode mode;
  const char* name;
};
constexpr StackModeName kStackModes[] = {{StackMode::kNone, "none"},
                                         {StackMode::kNative, "native"},
                                         {StackMode::kPython, "python"},
                                         {StackMode::kAuto, "auto"}};

void warn(std::string& warnings, const char* name, const char* value, const char* what) {
  if (!warnings.empty()) warnings += '\n';
  warnings += "memfloor: ignoring ";
  warnings += name;
  warnings += "='";
  warnings += value;
  warnings += "': ";
  warnings += what;
}

}  // namespace

NativeFrames nativeFramesFor(StackMode mode, bool python) {
  switch (mode) {
    case StackMode::kNative:
      return NativeFrames::kAll;
    case StackMode::kAuto:
      // A native walk through libtorch costs per tensor under cudaMallocAsync (docs/benchmarks.md);
      // the other calls are rare, and their native frames say what Python's cannot: NCCL's
      // buffers, and segments made on the autograd engine's threads, which run no Python.
      return python ? NativeFrames::kAllButStreamOrdered : NativeFrames::kAll;
    case StackMode::kNone:
    case StackMode::kPython:
      return NativeFrames::kNone;
  }
  return NativeFrames::kNone;
}

Config readConfig(GetEnv get, void* context, std::string& warnings) {
  Config config;
  if (const char* v = get(run_settings::kOutputDir, context); v != nullptr && *v != '\0') {
    config.output_dir = v;
  }
  if (const char* v = get(run_settings::kStacks, context); v != nullptr && *v != '\0') {
    bool known = false;
    for (const StackModeName& m : kStackModes) {
      if (std::strcmp(v, m.name) == 0) {
        config.stacks = m.mode;
        known = true;
      }
    }
    if (!known) warn(warnings, run_settings::kStacks, v, "expected none, native, python or auto");
  }
  if (const char* v = get(run_settings::kBufferSize, context); v != nullptr && *v != '\0') {
    uint64_t bytes = 0;
    // CUPTI wants at least a few KiB; above 256 MiB one buffer is wasteful.
    if (parseByteSize(v, bytes) && bytes >= 64 * units::kKiB && bytes <= 256 * units::kMiB) {
      config.buffer_bytes = static_cast<uint32_t>(bytes);
    } else {
      warn(warnings, run_settings::kBufferSize, v, "expected a size between 64k and 256m");
    }
  }
  if (const char* v = get(run_settings::kStackDepth, context); v != nullptr && *v != '\0') {
    uint64_t depth = 0;
    if (parseByteSize(v, depth) && depth <= 512) {
      config.max_stack_depth = static_cast<uint32_t>(depth);
    } else {
      warn(warnings, run_settings::kStackDepth, v, "expected 1..512");
    }
  }
  if (const char* v = get(run_settings::kFlushMs, context); v != nullptr && *v != '\0') {
    uint64_t ms = 0;
    // Milliseconds, not a size: "2k" is refused rather than read as 2048 ms.
    if (parseCount(v, ms) && ms >= 1 && ms <= kMaxFlushMs) {
      config.flush_period_ms = static_cast<uint32_t>(ms);
    } else {
      warn(warnings, run_settings::kFlushMs, v, "expected 1..3600000");
    }
  }
  if (const char* v = get(run_settings::kIterationPattern, context); v != nullptr) {
    config.iteration_pattern = v;
  }
  if (const char* v = get(run_settings::kVerbose, context); v != nullptr) {
    config.verbose = std::strcmp(v, "1") == 0;
  }
  return config;
}

}  // namespace memfloor::hook
