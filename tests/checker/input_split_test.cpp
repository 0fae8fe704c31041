// Tests of the command line split: Python inputs go to the Python front end, option values and
// everything after `--` stay with the rest.
#include "checker/input_split.h"

#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <set>

namespace memfloor::checker {
namespace {

namespace fs = std::filesystem;

using Args = std::vector<std::string>;

// Options as LLVM registers them for memfloor-check: these take a value.
bool takesValue(std::string_view name) {
  static const std::set<std::string_view> kValued{"p", "j", "format", "extra-arg", "python"};
  return kValued.count(name) > 0;
}

fs::path scratch() {
  fs::path dir =
      fs::temp_directory_path() / ("memfloor-input-split-test-" + std::to_string(::getpid()));
  fs::create_directories(dir / "build");
  fs::create_directories(dir / "model");
  return dir;
}

TEST_CASE("Python files and directories go to the Python front end", "[input_split]") {
  const fs::path dir = scratch();
  const std::string model = (dir / "model").string();
  const InputSplit split =
      splitInputs({"memfloor-check", "a.cpp", "layer.py", model, "stubs.pyi", "b.cc"}, takesValue);
  CHECK(split.args == Args{"memfloor-check", "a.cpp", "b.cc"});
  CHECK(split.python_inputs == Args{"layer.py", model, "stubs.pyi"});
  fs::remove_all(dir);
}

TEST_CASE("An option's value is not an input, even a directory", "[input_split]") {
  const fs::path dir = scratch();
  const std::string build = (dir / "build").string();
  const std::string model = (dir / "model").string();
  const InputSplit split = splitInputs({"memfloor-check", "-p", build, "--format", "json", "-j",
                                        "4", "--fix", model, "--python=/opt/py.py", "x.py"},
                                       takesValue);
  CHECK(split.args == Args{"memfloor-check", "-p", build, "--format", "json", "-j", "4", "--fix",
                           "--python=/opt/py.py"});
  CHECK(split.python_inputs == Args{model, "x.py"});
  // `-p=DIR` carries its value: the next argument is an input again.
  const InputSplit joined = splitInputs({"memfloor-check", "-p=" + build, model}, takesValue);
  CHECK(joined.args == Args{"memfloor-check", "-p=" + build});
  CHECK(joined.python_inputs == Args{model});
  fs::remove_all(dir);
}

TEST_CASE("`--` ends the inputs: what follows is for the compiler", "[input_split]") {
  const fs::path dir = scratch();
  const std::string model = (dir / "model").string();
  const InputSplit split =
      splitInputs({"memfloor-check", "a.py", "--", "-I", model, "gen.py"}, takesValue);
  CHECK(split.args == Args{"memfloor-check", "--", "-I", model, "gen.py"});
  CHECK(split.python_inputs == Args{"a.py"});
  // An option that wants a value does not take `--` as one.
  const InputSplit bare = splitInputs({"memfloor-check", "-p", "--", "x.py"}, takesValue);
  CHECK(bare.args == Args{"memfloor-check", "-p", "--", "x.py"});
  CHECK(bare.python_inputs.empty());
  fs::remove_all(dir);
}

TEST_CASE("Without Python inputs the command line is unchanged", "[input_split]") {
  const Args argv{"memfloor-check", "--extra-arg", "-std=c++17", "src/a.cpp", "--", "-DX"};
  const InputSplit split = splitInputs(argv, takesValue);
  CHECK(split.args == argv);
  CHECK(split.python_inputs.empty());
  CHECK(isPythonInput("x.pyi"));
  CHECK_FALSE(isPythonInput("x.cpp"));
}

}  // namespace
}  // namespace memfloor::checker
