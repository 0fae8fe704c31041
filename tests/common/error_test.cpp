// Tests of Error: a message from untrusted input reaches the user whole and inert.
#include "common/error.h"

#include <catch2/catch.hpp>
#include <string>

namespace memfloor::common::test {
namespace {

TEST_CASE("an Error keeps what follows a NUL byte and escapes control bytes", "[error]") {
  const std::string token("ab\0cd", 5);
  const Error e("trace.txt:3: unknown record type '" + token + "\x1b[2J'");
  CHECK(std::string(e.what()) == "trace.txt:3: unknown record type 'ab\\x00cd\\x1b[2J'");
}

TEST_CASE("an Error's message that quotes an escaped one is not escaped twice", "[error]") {
  const Error inner(std::string("a\rb"));
  const Error outer(std::string("run.json: ") + inner.what());
  CHECK(std::string(outer.what()) == "run.json: a\\x0db");
}

TEST_CASE("an Error keeps line breaks and tabs: it may quote a child's standard error", "[error]") {
  CHECK(std::string(Error("failed; its standard error:\nline 1\n\tline 2").what()) ==
        "failed; its standard error:\nline 1\n\tline 2");
}

}  // namespace
}  // namespace memfloor::common::test
