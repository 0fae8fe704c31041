// The companion's name patterns through the hook's C API: RE2 as the analysis reads it.
#include "runtime_hook/name_pattern_calls.h"

#include <catch2/catch.hpp>
#include <string>
#include <string_view>

using namespace memfloor;

namespace {

uint32_t match(const memfloor_name_pattern_v1* pattern, std::string_view name) {
  return hook::matchPatternCall(pattern, name.data(), name.size());
}

memfloor_name_pattern_v1* compile(std::string_view pattern) {
  return hook::compilePatternCall(pattern.data(), pattern.size(), nullptr, 0);
}

}  // namespace

TEST_CASE("a name pattern matches whole names, case-insensitively", "[runtime_hook]") {
  memfloor_name_pattern_v1* pattern = compile(R"(iteration[\s_]*\d+)");
  REQUIRE(pattern != nullptr);
  CHECK(match(pattern, "iteration 7") == 1);
  CHECK(match(pattern, "Iteration_12") == 1);
  CHECK(match(pattern, "iteration 7 forward") == 0);  // the whole name, not a part
  CHECK(match(pattern, "") == 0);
  CHECK(hook::matchPatternCall(pattern, nullptr, 0) == 0);
  hook::freePatternCall(pattern);
}

TEST_CASE("a pattern that backtracking would take hours over is matched at once",
          "[runtime_hook]") {
  memfloor_name_pattern_v1* pattern = compile("(a+)+");
  REQUIRE(pattern != nullptr);
  CHECK(match(pattern, std::string(27, 'a') + "!") == 0);
  CHECK(match(pattern, std::string(100000, 'a') + "!") == 0);
  CHECK(match(pattern, std::string(100000, 'A')) == 1);
  hook::freePatternCall(pattern);
}

TEST_CASE("a pattern RE2 refuses gives no handle and says why", "[runtime_hook]") {
  char error[16] = "untouched";
  CHECK(hook::compilePatternCall("(a", 2, error, sizeof error) == nullptr);
  CHECK(std::string_view(error) == std::string_view("missing ): (a").substr(0, 15));
  CHECK(hook::compilePatternCall(R"((a)\1)", 5, nullptr, 0) == nullptr);  // no backreferences
  CHECK(hook::compilePatternCall("(a", 2, error, 1) == nullptr);
  CHECK(error[0] == '\0');
}

TEST_CASE("no handle matches nothing; freeing none is nothing", "[runtime_hook]") {
  CHECK(match(nullptr, "iteration 1") == 0);
  hook::freePatternCall(nullptr);
  memfloor_name_pattern_v1* everything = hook::compilePatternCall(nullptr, 0, nullptr, 0);
  REQUIRE(everything != nullptr);  // the empty pattern: the empty name only
  CHECK(match(everything, "") == 1);
  CHECK(match(everything, "x") == 0);
  hook::freePatternCall(everything);
}
