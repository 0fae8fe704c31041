// The hook's settings from the environment.
#include "runtime_hook/config.h"

#include <catch2/catch.hpp>
#include <map>
#include <string>

#include "tests/runtime_hook/test_support.h"

using namespace memfloor::hook;
using test::Env;
using test::lookup;

TEST_CASE("defaults without any variable", "[runtime_hook]") {
  Env env;
  std::string warnings;
  Config config = readConfig(lookup, &env, warnings);
  CHECK(config.output_dir == ".");
  CHECK(config.stacks == StackMode::kNone);
  CHECK(config.buffer_bytes == (8u << 20));
  CHECK(config.iteration_pattern.empty());
  CHECK(warnings.empty());
}

TEST_CASE("memfloor run's variables are read", "[runtime_hook]") {
  Env env{{"MEMFLOOR_OUTPUT_DIR", "/tmp/x"},
          {"MEMFLOOR_STACKS", "native"},
          {"MEMFLOOR_BUFFER_SIZE", "2m"},
          {"MEMFLOOR_ITERATION_PATTERN", "step.*"},
          {"MEMFLOOR_FLUSH_MS", "250"}};
  std::string warnings;
  Config config = readConfig(lookup, &env, warnings);
  CHECK(config.output_dir == "/tmp/x");
  CHECK(config.stacks == StackMode::kNative);
  CHECK(config.buffer_bytes == (2u << 20));
  CHECK(config.iteration_pattern == "step.*");
  CHECK(config.flush_period_ms == 250);
  CHECK(warnings.empty());
}

TEST_CASE("bad values fall back to defaults with one warning each", "[runtime_hook]") {
  Env env{{"MEMFLOOR_STACKS", "python"}, {"MEMFLOOR_BUFFER_SIZE", "12q"}};
  std::string warnings;
  Config config = readConfig(lookup, &env, warnings);
  CHECK(config.stacks == StackMode::kNone);
  CHECK(config.buffer_bytes == (8u << 20));
  CHECK(warnings ==
        "memfloor: ignoring MEMFLOOR_STACKS='python': expected none or native\n"
        "memfloor: ignoring MEMFLOOR_BUFFER_SIZE='12q': expected a size between 64k and 256m");
}

TEST_CASE("byte sizes", "[runtime_hook]") {
  uint64_t v = 0;
  CHECK((parseByteSize("4096", v) && v == 4096));
  CHECK((parseByteSize("64k", v) && v == 65536));
  CHECK((parseByteSize("8M", v) && v == (8u << 20)));
  CHECK((parseByteSize("1g", v) && v == (1ull << 30)));
  CHECK_FALSE(parseByteSize("", v));
  CHECK_FALSE(parseByteSize("0", v));
  CHECK_FALSE(parseByteSize("-5", v));
  CHECK_FALSE(parseByteSize("5mb", v));
  CHECK_FALSE(parseByteSize("99999999999999999999", v));
  CHECK_FALSE(parseByteSize("17179869184g", v));
}
