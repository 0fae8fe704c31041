// The one reading of a name pattern (the iteration pattern): RE2, case-insensitive, whole name.
#pragma once

#include <memory>
#include <string_view>

namespace re2 {
class RE2;
}

namespace memfloor {

// The pattern as every side that matches marker names reads it (the analysis' iteration ranges,
// the hook for the Python companion's): RE2 syntax, case-insensitive, within RE2's default memory
// budget. Check ok() on the result (error() says why not); nothing is logged. Throws nothing but
// std::bad_alloc.
std::unique_ptr<re2::RE2> compileNamePattern(std::string_view pattern);

// Whether the pattern matches the whole name, in time linear in the name's length.
bool matchesName(const re2::RE2& pattern, std::string_view name);

}  // namespace memfloor
