// Tokenizer for the text form: whitespace-separated tokens, quoted strings with C-style escapes.
#include "trace/text_line.h"

#include <fmt/format.h>

namespace memfloor::trace {

namespace {

bool isSpace(char c) { return c == ' ' || c == '\t' || c == '\r'; }

int hexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// Parses the quoted string starting at line[i] == '"'; leaves i after the closing quote.
std::string readQuoted(std::string_view line, size_t& i, TextToken& token) {
  const size_t start = ++i;
  while (i < line.size() && line[i] != '"') {
    if (line[i] == '\\') {
      if (i + 1 >= line.size()) return "unterminated string";
      const char e = line[i + 1];
      i += 2;
      switch (e) {
        case '\\':
          token.text += '\\';
          break;
        case '"':
          token.text += '"';
          break;
        case 'n':
          token.text += '\n';
          break;
        case 't':
          token.text += '\t';
          break;
        case 'r':
          token.text += '\r';
          break;
        case '0':
          token.text += '\0';
          break;
        case 'x': {
          const int hi = i < line.size() ? hexDigit(line[i]) : -1;
          const int lo = i + 1 < line.size() ? hexDigit(line[i + 1]) : -1;
          if (hi < 0 || lo < 0) return "\\x needs two hex digits";
          token.text += static_cast<char>(hi * 16 + lo);
          i += 2;
          break;
        }
        default:
          return fmt::format("unknown escape '\\{}' in a string", e);
      }
    } else {
      token.text += line[i++];
    }
  }
  if (i >= line.size()) return "unterminated string";
  token.value = line.substr(start, i - start);
  token.quoted = true;
  ++i;  // the closing quote
  if (i < line.size() && !isSpace(line[i])) return "unexpected text after a closing quote";
  return {};
}

}  // namespace

std::string splitTextLine(std::string_view line, std::vector<TextToken>& tokens) {
  tokens.clear();
  size_t i = 0;
  for (;;) {
    while (i < line.size() && isSpace(line[i])) ++i;
    if (i == line.size() || line[i] == '#') return {};
    TextToken& token = tokens.emplace_back();
    const size_t start = i;
    while (i < line.size() && !isSpace(line[i]) && line[i] != '=' && line[i] != '"') ++i;
    if (i < line.size() && line[i] == '=') {
      token.key = line.substr(start, i - start);
      if (token.key.empty()) return "a field needs a name before '='";
      ++i;
    } else {
      i = start;
    }
    if (i < line.size() && line[i] == '"') {
      std::string problem = readQuoted(line, i, token);
      if (!problem.empty()) return problem;
      continue;
    }
    const size_t value_start = i;
    while (i < line.size() && !isSpace(line[i])) {
      if (line[i] == '"') return "a quote inside a value";
      ++i;
    }
    token.value = line.substr(value_start, i - value_start);
  }
}

}  // namespace memfloor::trace
