// compilePatternCall, matchPatternCall, freePatternCall: RE2 behind the C API's opaque handle.
#include "runtime_hook/name_pattern_calls.h"

#include <re2/re2.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <new>
#include <string_view>

#include "common/name_pattern.h"

// What a memfloor_name_pattern_v1* points at.
struct memfloor_name_pattern_v1 {
  std::unique_ptr<re2::RE2> re2;
};

namespace memfloor::hook {
namespace {

void copyError(std::string_view why, char* error, uint64_t error_size) {
  if (error == nullptr || error_size == 0) return;
  const size_t size = std::min<uint64_t>(why.size(), error_size - 1);
  std::memcpy(error, why.data(), size);
  error[size] = '\0';
}

std::string_view viewOf(const char* text, uint64_t length) {
  return text != nullptr ? std::string_view(text, length) : std::string_view();
}

}  // namespace

memfloor_name_pattern_v1* compilePatternCall(const char* pattern, uint64_t length, char* error,
                                             uint64_t error_size) noexcept {
  try {
    std::unique_ptr<re2::RE2> compiled = memfloor::compileNamePattern(viewOf(pattern, length));
    if (!compiled->ok()) {
      copyError(compiled->error(), error, error_size);
      return nullptr;
    }
    return new memfloor_name_pattern_v1{std::move(compiled)};
  } catch (...) {  // std::bad_alloc: no exception crosses the C boundary
    copyError("out of memory", error, error_size);
    return nullptr;
  }
}

uint32_t matchPatternCall(const memfloor_name_pattern_v1* pattern, const char* name,
                          uint64_t length) noexcept {
  if (pattern == nullptr || pattern->re2 == nullptr) return 0;
  try {
    return matchesName(*pattern->re2, viewOf(name, length)) ? 1 : 0;
  } catch (...) {
    return 0;
  }
}

void freePatternCall(memfloor_name_pattern_v1* pattern) noexcept { delete pattern; }

}  // namespace memfloor::hook
