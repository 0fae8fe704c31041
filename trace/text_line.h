// Private to trace/: splits one line of the text form into tokens and unescapes quoted strings.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace memfloor::trace {

// One token: `word`, `"quoted text"`, `key=value` or `key="quoted text"`.
struct TextToken {
  std::string_view key;    // empty for a positional token
  std::string_view value;  // the raw value (for a quoted one, without the quotes, still escaped)
  bool quoted = false;
  std::string text;  // the unescaped value of a quoted token
};

// Splits line into tokens, dropping a trailing comment. Returns an empty string, or what is
// wrong with the line (an unterminated string, a bad escape...).
std::string splitTextLine(std::string_view line, std::vector<TextToken>& tokens);

}  // namespace memfloor::trace
