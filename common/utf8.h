// UTF-8 as Python's pickle reads and writes it: checked, code points appended, invalid bytes
// replaced.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace memfloor::common {

// The largest Unicode code point.
inline constexpr char32_t kMaxCodePoint = 0x10FFFF;

// The length of the longest prefix of `text` that is UTF-8 as Python decodes a pickle's str
// ('utf-8' with 'surrogatepass'): no overlong forms and nothing past U+10FFFF, but the lone
// surrogates U+D800..U+DFFF that Python writes for file names it could not decode are accepted.
// text.size() when all of it is.
size_t utf8Prefix(std::string_view text);

// Appends `code_point` (at most kMaxCodePoint; surrogates too) encoded as UTF-8.
void appendUtf8(std::string& out, char32_t code_point);

// `text` with every byte that does not begin a sequence utf8Prefix accepts replaced by U+FFFD.
std::string replaceInvalidUtf8(std::string_view text);

}  // namespace memfloor::common
