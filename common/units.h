// The units memfloor counts in: bytes (binary multiples) and nanoseconds. Header-only.
#pragma once

#include <cstdint>

namespace memfloor::units {

inline constexpr uint64_t kKiB = 1024;
inline constexpr uint64_t kMiB = 1024 * kKiB;
inline constexpr uint64_t kGiB = 1024 * kMiB;

inline constexpr uint64_t kNsPerUs = 1000;
inline constexpr uint64_t kNsPerMs = 1000 * kNsPerUs;
inline constexpr uint64_t kNsPerS = 1000 * kNsPerMs;

}  // namespace memfloor::units
