// compileNamePattern and matchesName: RE2's options for marker names, in one place.
#include "common/name_pattern.h"

#include <re2/re2.h>

namespace memfloor {

std::unique_ptr<re2::RE2> compileNamePattern(std::string_view pattern) {
  RE2::Options options;
  options.set_case_sensitive(false);
  options.set_log_errors(false);
  return std::make_unique<re2::RE2>(re2::StringPiece(pattern.data(), pattern.size()), options);
}

bool matchesName(const re2::RE2& pattern, std::string_view name) {
  return pattern.ok() && RE2::FullMatch(re2::StringPiece(name.data(), name.size()), pattern);
}

}  // namespace memfloor
