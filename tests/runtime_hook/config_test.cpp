// The hook's settings from the environment.
#include "runtime_hook/config.h"

#include <catch2/catch.hpp>
#include <map>
#include <string>
#include <string_view>
#include <utility>

#include "common/run_settings.h"
#include "tests/runtime_hook/test_support.h"

using namespace memfloor::hook;
namespace run_settings = memfloor::run_settings;
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

TEST_CASE("every stack mode is read by its name", "[runtime_hook]") {
  // The names memfloor run passes (common/run_settings.h, --stacks), each one a mode of its own.
  const std::map<std::string_view, StackMode> modes{{"none", StackMode::kNone},
                                                    {"native", StackMode::kNative},
                                                    {"python", StackMode::kPython},
                                                    {"auto", StackMode::kAuto}};
  REQUIRE(run_settings::kStackModes.size() == modes.size());
  for (const std::string_view name : run_settings::kStackModes) {
    REQUIRE(modes.count(name) == 1);
    Env env{{run_settings::kStacks, std::string(name)}};
    std::string warnings;
    CHECK(readConfig(lookup, &env, warnings).stacks == modes.at(name));
    CHECK(warnings.empty());
  }
}

TEST_CASE("native frames: all calls, none, or in a Python process all but stream-ordered ones",
          "[runtime_hook]") {
  CHECK(nativeFramesFor(StackMode::kNative, true) == NativeFrames::kAll);
  CHECK(nativeFramesFor(StackMode::kNative, false) == NativeFrames::kAll);
  CHECK(nativeFramesFor(StackMode::kAuto, false) == NativeFrames::kAll);
  CHECK(nativeFramesFor(StackMode::kAuto, true) == NativeFrames::kAllButStreamOrdered);
  CHECK(nativeFramesFor(StackMode::kPython, true) == NativeFrames::kNone);
  CHECK(nativeFramesFor(StackMode::kNone, false) == NativeFrames::kNone);
}

TEST_CASE("bad values fall back to defaults with one warning each", "[runtime_hook]") {
  Env env{{"MEMFLOOR_STACKS", "pyhton"}, {"MEMFLOOR_BUFFER_SIZE", "12q"}};
  std::string warnings;
  Config config = readConfig(lookup, &env, warnings);
  CHECK(config.stacks == StackMode::kNone);
  CHECK(config.buffer_bytes == (8u << 20));
  CHECK(warnings ==
        "memfloor: ignoring MEMFLOOR_STACKS='pyhton': expected none, native, python or auto\n"
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
  // Digits first: strtoull takes a leading space and a sign, and wraps a negative value around.
  CHECK_FALSE(parseByteSize(" 65536", v));
  CHECK_FALSE(parseByteSize("+64k", v));
  CHECK_FALSE(parseByteSize(" -18446744073642442752", v));  // was 64 MiB
}

TEST_CASE("the flush period is plain milliseconds, without units", "[runtime_hook]") {
  std::string warnings;
  Env plain{{"MEMFLOOR_FLUSH_MS", "250"}};
  CHECK(readConfig(lookup, &plain, warnings).flush_period_ms == 250);
  CHECK(warnings.empty());

  // A size suffix would have made this 2048 ms.
  Env suffixed{{"MEMFLOOR_FLUSH_MS", "2k"}};
  CHECK(readConfig(lookup, &suffixed, warnings).flush_period_ms == 1000);
  CHECK(warnings == "memfloor: ignoring MEMFLOOR_FLUSH_MS='2k': expected 1..3600000");

  for (const char* bad : {"0", "3600001", "+5", " 5", "5 ", "-1", "1.5", "99999999999999999999"}) {
    std::string w;
    Env env{{"MEMFLOOR_FLUSH_MS", bad}};
    CAPTURE(bad);
    CHECK(readConfig(lookup, &env, w).flush_period_ms == 1000);
    CHECK_FALSE(w.empty());
  }
  Env longest{{"MEMFLOOR_FLUSH_MS", "3600000"}};
  CHECK(readConfig(lookup, &longest, warnings).flush_period_ms == 3600000);
}

TEST_CASE("counts are digits only", "[runtime_hook]") {
  uint64_t v = 7;
  CHECK((parseCount("0", v) && v == 0));
  CHECK((parseCount("250", v) && v == 250));
  CHECK((parseCount("18446744073709551615", v) && v == UINT64_MAX));
  v = 7;
  CHECK_FALSE(parseCount("18446744073709551616", v));
  CHECK_FALSE(parseCount("", v));
  CHECK_FALSE(parseCount(nullptr, v));
  CHECK_FALSE(parseCount("2k", v));
  CHECK_FALSE(parseCount("+2", v));
  CHECK_FALSE(parseCount(" 2", v));
  CHECK(v == 7);  // untouched on failure
}
