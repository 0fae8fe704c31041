// Tests of trace/text_line.cpp: tokens, quoted strings, escapes and comments.
#include "trace/text_line.h"

#include <catch2/catch.hpp>

namespace memfloor::trace {
namespace {

std::vector<TextToken> split(std::string_view line) {
  std::vector<TextToken> tokens;
  const std::string problem = splitTextLine(line, tokens);
  REQUIRE(problem == "");
  return tokens;
}

std::string problemOf(std::string_view line) {
  std::vector<TextToken> tokens;
  return splitTextLine(line, tokens);
}

TEST_CASE("words, fields and quoted strings", "[trace][text_line]") {
  const auto tokens = split("  marker push\tt=5 name=\"iteration 1\" \"x y\"  # comment \"");
  REQUIRE(tokens.size() == 5);
  CHECK(tokens[0].key.empty());
  CHECK(tokens[0].value == "marker");
  CHECK(tokens[1].value == "push");
  CHECK(tokens[2].key == "t");
  CHECK(tokens[2].value == "5");
  CHECK_FALSE(tokens[2].quoted);
  CHECK(tokens[3].key == "name");
  CHECK(tokens[3].quoted);
  CHECK(tokens[3].text == "iteration 1");
  CHECK(tokens[4].key.empty());
  CHECK(tokens[4].text == "x y");
  CHECK(split("").empty());
  CHECK(split("   # only a comment").empty());
  CHECK(split("a=b#c").at(0).value == "b#c");  // '#' starts a comment only at a token start
  CHECK(split("frames=").at(0).value.empty());
  CHECK(split("dropped cupti\r").size() == 2);  // CRLF files
}

TEST_CASE("escapes", "[trace][text_line]") {
  const auto tokens = split(R"(string 1 "a\\b\"c\n\t\r\0\x41\xfF#")");
  REQUIRE(tokens.size() == 3);
  CHECK(tokens[2].text == std::string("a\\b\"c\n\t\r\0A\xff#", 12));
  CHECK(split("s \"raw\ttab \xc3\xa9\"").at(1).text == "raw\ttab \xc3\xa9");
}

TEST_CASE("malformed lines", "[trace][text_line]") {
  CHECK(problemOf("string 1 \"open") == "unterminated string");
  CHECK(problemOf("string 1 \"ends in backslash\\") == "unterminated string");
  CHECK(problemOf(R"(string 1 "\q")") == "unknown escape '\\q' in a string");
  CHECK(problemOf(R"(string 1 "\x4")") == "\\x needs two hex digits");
  CHECK(problemOf(R"(string 1 "\x")") == "\\x needs two hex digits");
  CHECK(problemOf(R"(string 1 "a"b)") == "unexpected text after a closing quote");
  CHECK(problemOf("a b=c\"d") == "a quote inside a value");
  CHECK(problemOf("a =5") == "a field needs a name before '='");
}

}  // namespace
}  // namespace memfloor::trace
