// The companion's name patterns (memfloor_name_pattern_*_v1): compiled and matched as the analysis
// matches marker names (common/name_pattern.h), with no session: they work untraced too.
#pragma once

#include <cstdint>

#include "include/memfloor/companion.h"

namespace memfloor::hook {

// memfloor_name_pattern_compile_v1: nullptr (and why, in error) when RE2 refuses the pattern or
// memory runs out. Throws nothing.
memfloor_name_pattern_v1* compilePatternCall(const char* pattern, uint64_t length, char* error,
                                             uint64_t error_size) noexcept;

// memfloor_name_pattern_match_v1: 1 when the whole name matches, 0 when not or pattern is null.
uint32_t matchPatternCall(const memfloor_name_pattern_v1* pattern, const char* name,
                          uint64_t length) noexcept;

void freePatternCall(memfloor_name_pattern_v1* pattern) noexcept;

}  // namespace memfloor::hook
