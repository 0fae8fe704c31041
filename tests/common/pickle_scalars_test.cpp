// Tests of common/pickle_scalars: the pickle's int encodings and protocol 0's text, decoded as
// Python decodes them.
#include "common/pickle_scalars.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <string>
#include <vector>

namespace memfloor::common {
namespace {

std::optional<int64_t> twos(std::vector<uint8_t> bytes) { return twosComplement(bytes); }

TEST_CASE("pickle_scalars: two's complement of any length, within int64", "[pickle]") {
  CHECK(twos({}) == 0);
  CHECK(twos({0x7f}) == 127);
  CHECK(twos({0x80}) == -128);
  CHECK(twos({0x00, 0x80}) == -32768);
  CHECK(twos({0x00, 0x80, 0x00}) == 32768);
  CHECK(twos({0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}) == -1);
  CHECK(twos({0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}) == -1);
  CHECK(twos({0x01, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}) == 1);
  CHECK_FALSE(twos({0, 0, 0, 0, 0, 0, 0, 0, 0x01}));                          // 2^64
  CHECK_FALSE(twos({0, 0, 0, 0, 0, 0, 0, 0x80, 0x00}));                       // 2^63
  CHECK_FALSE(twos({0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f, 0xff}));  // -2^63 - 1
  CHECK(littleEndian(std::vector<uint8_t>{0x34, 0x12}) == 0x1234);
}

TEST_CASE("pickle_scalars: protocol 0's decimal ints and floats", "[pickle]") {
  CHECK(decimalInt("0") == 0);
  CHECK(decimalInt("-42") == -42);
  CHECK(decimalInt("9223372036854775807") == INT64_MAX);
  CHECK_FALSE(decimalInt("9223372036854775808"));
  CHECK_FALSE(decimalInt(""));
  CHECK_FALSE(decimalInt("+1"));
  CHECK_FALSE(decimalInt("1 "));
  CHECK_FALSE(decimalInt("0x10"));
  CHECK(decimalFloat("1e+100") == 1e100);
  CHECK(decimalFloat("-0.5") == -0.5);
  CHECK(std::isinf(*decimalFloat("inf")));
  CHECK(std::isnan(*decimalFloat("nan")));
  CHECK_FALSE(decimalFloat("1.5x"));
}

TEST_CASE("pickle_scalars: raw-unicode-escape, an odd run of backslashes before u escaping",
          "[pickle]") {
  CHECK(rawUnicodeEscape("plain") == "plain");
  CHECK(rawUnicodeEscape("caf\xe9") == "caf\xc3\xa9");  // Latin-1 bytes are code points
  CHECK(rawUnicodeEscape("\\u00e9\\U0001f600") == "\xc3\xa9\xf0\x9f\x98\x80");
  CHECK(rawUnicodeEscape("\\\\u0041") == "\\\\u0041");  // an even run: no escape
  CHECK(rawUnicodeEscape("\\\\\\u0041") == "\\\\A");    // an odd run: the last one escapes
  CHECK(rawUnicodeEscape("a\\b\\") == "a\\b\\");        // a backslash before no u
  CHECK(rawUnicodeEscape("\\ud800") == "\xed\xa0\x80");
  CHECK_FALSE(rawUnicodeEscape("\\u00"));
  CHECK_FALSE(rawUnicodeEscape("\\u+041"));
  CHECK_FALSE(rawUnicodeEscape("\\U00110000"));
}

}  // namespace
}  // namespace memfloor::common
