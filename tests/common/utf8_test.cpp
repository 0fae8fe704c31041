// Tests of common/utf8: UTF-8 checked as Python's pickle reads str ('surrogatepass'), code points
// written, invalid bytes replaced.
#include "common/utf8.h"

#include <catch2/catch.hpp>
#include <string>

namespace memfloor::common {
namespace {

TEST_CASE("utf8: valid text, with the lone surrogates Python writes, is all accepted", "[utf8]") {
  for (const std::string_view text :
       {"", "ascii", "ünïcödé", "😀", "\xed\xa0\x80", "\xed\xbf\xbf", "\xf4\x8f\xbf\xbf"}) {
    INFO(text);
    CHECK(utf8Prefix(text) == text.size());
  }
}

TEST_CASE("utf8: the prefix ends where the text stops being UTF-8", "[utf8]") {
  CHECK(utf8Prefix("ab\x80") == 2);                 // a continuation byte alone
  CHECK(utf8Prefix("a\xc0\x80") == 1);              // overlong NUL
  CHECK(utf8Prefix("a\xe0\x80\x80") == 1);          // overlong 3 bytes
  CHECK(utf8Prefix("a\xf0\x80\x80\x80") == 1);      // overlong 4 bytes
  CHECK(utf8Prefix("a\xf4\x90\x80\x80") == 1);      // past U+10FFFF
  CHECK(utf8Prefix("a\xf8\x88\x80\x80\x80") == 1);  // 5-byte forms are gone
  CHECK(utf8Prefix("\xc3\xa9\xc3") == 2);           // cut short
  CHECK(utf8Prefix("\xc3(") == 0);                  // no continuation
  CHECK(utf8Prefix("\xff") == 0);
}

TEST_CASE("utf8: code points are written in 1 to 4 bytes, surrogates included", "[utf8]") {
  std::string out;
  for (const char32_t code_point : {U'A', U'\u00e9', U'\u20ac', U'\U0001F600'}) {
    appendUtf8(out, code_point);
  }
  appendUtf8(out, 0xD800);
  appendUtf8(out, kMaxCodePoint);
  CHECK(out == "A\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\xed\xa0\x80\xf4\x8f\xbf\xbf");
  CHECK(utf8Prefix(out) == out.size());
}

TEST_CASE("utf8: each invalid byte becomes U+FFFD, valid text stays", "[utf8]") {
  CHECK(replaceInvalidUtf8("ok ünï") == "ok ünï");
  CHECK(replaceInvalidUtf8("a\xff"
                           "b\xc3") ==
        "a\xef\xbf\xbd"
        "b\xef\xbf\xbd");
  CHECK(replaceInvalidUtf8("\xc0\x80") == "\xef\xbf\xbd\xef\xbf\xbd");
}

}  // namespace
}  // namespace memfloor::common
