// Tests of running the Python front end: the command line it gets, the document it prints, and
// the errors when it cannot run, fails or prints something else. Fake front ends (small
// memfloor_pyfacts packages written here) stand in for the real one: this is the plumbing.
#include "checker/python_front_end.h"

#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "common/error.h"

namespace memfloor::checker {
namespace {

namespace fs = std::filesystem;

// A front end that records its arguments in argv.json next to it and prints an envelope: one unit
// and one call site per path, and one error.
constexpr const char* kEchoMain = R"py(import json, os, sys

def main(argv):
    with open(os.path.join(os.path.dirname(__file__), "argv.json"), "w") as f:
        json.dump(argv, f)
    paths = argv[argv.index("--") + 1:]
    calls = [{"method": "Manager.commit", "handle": "self.manager", "persistent": True,
              "loc": {"file": p, "line": 3, "column": 9, "offset": 40}} for p in paths]
    facts = {"schema": "memfloor.facts/1", "units": paths, "records": {}, "fields": {},
             "functions": {}, "events": [], "calls": calls, "derefs": []}
    print(json.dumps({"schema": "memfloor.pyfacts/1", "facts": facts,
                      "errors": ["broken.py: invalid syntax (line 2)"],
                      "files": len(paths), "bytes": 120
}))
    return 0
)py";

constexpr const char* kFailingMain = R"py(import sys

def main(argv):
    print("partial output")
    print("cannot walk src/: permission denied", file=sys.stderr)
    return 3
)py";

constexpr const char* kGarbageMain = R"py(def main(argv):
    print("hello, not JSON")
    return 0
)py";

constexpr const char* kWrongSchemaMain = R"py(import json

def main(argv):
    print(json.dumps({"schema": "memfloor.facts/1", "units": []}))
    return 0
)py";

constexpr const char* kBadErrorsMain = R"py(import json

def main(argv):
    facts = {"schema": "memfloor.facts/1", "units": [], "records": {}, "fields": {},
             "functions": {}, "events": [], "calls": [], "derefs": []}
    print(json.dumps({"schema": "memfloor.pyfacts/1", "facts": facts, "errors": "none",
                      "files": 0, "bytes": 0}))
    return 0
)py";

// This process's scratch directory, removed when it exits.
const fs::path& scratchRoot() {
  struct Root {
    fs::path path =
        fs::temp_directory_path() / ("memfloor-pyfront-test-" + std::to_string(::getpid()));
    ~Root() {
      std::error_code ec;
      fs::remove_all(path, ec);
    }
  };
  static const Root kRoot;
  return kRoot.path;
}

// <scratch>/<name>/memfloor_pyfacts/main.py holding `main`; returns <scratch>/<name>.
std::string fakeFrontEnd(const std::string& name, const std::string& main) {
  const fs::path dir = scratchRoot() / name;
  fs::create_directories(dir / "memfloor_pyfacts");
  std::ofstream(dir / "memfloor_pyfacts" / "__init__.py") << "";
  std::ofstream(dir / "memfloor_pyfacts" / "main.py") << main;
  return dir.string();
}

PythonOptions optionsFor(const std::string& dir) {
  PythonOptions options;
  options.python = MEMFLOOR_PYTHON3;
  options.front_end_dir = dir;
  return options;
}

TEST_CASE("The front end gets the contract's command line and its facts are read",
          "[python_front_end]") {
  const std::string dir = fakeFrontEnd("echo", kEchoMain);
  Config config;
  config.python_exclude = {"tests/*"};
  PythonOptions options = optionsFor(dir);
  options.jobs = 3;
  options.excludes = {"tests/*", "*_pb2.py"};
  std::vector<std::string> errors{"a.cpp: not checked: earlier"};
  const Facts facts = collectPythonFacts({"model/layer.py", "src"}, config, options, errors);
  CHECK(facts.units == std::vector<std::string>{"model/layer.py", "src"});
  REQUIRE(facts.calls.size() == 2);
  CHECK(facts.calls.front().handle == "self.manager");
  CHECK(facts.calls.front().persistent);
  CHECK(errors == std::vector<std::string>{"a.cpp: not checked: earlier",
                                           "broken.py: invalid syntax (line 2)"});

  std::ifstream in(fs::path(dir) / "memfloor_pyfacts" / "argv.json");
  const nlohmann::json argv = nlohmann::json::parse(in);
  REQUIRE(argv.size() == 11);
  CHECK(argv[0] == "--config-json");
  CHECK(nlohmann::json::parse(argv[1].get<std::string>()) == toJson(config));
  CHECK(argv[2] == "--jobs");
  CHECK(argv[3] == "3");
  CHECK(argv[4] == "--exclude");
  CHECK(argv[5] == "tests/*");
  CHECK(argv[6] == "--exclude");
  CHECK(argv[7] == "*_pb2.py");
  CHECK(argv[8] == "--");
  CHECK(argv[9] == "model/layer.py");
  CHECK(argv[10] == "src");
}

TEST_CASE("A front end that fails is an error with its exit status and standard error",
          "[python_front_end]") {
  const std::string dir = fakeFrontEnd("failing", kFailingMain);
  std::vector<std::string> errors;
  CHECK_THROWS_WITH(collectPythonFacts({"a.py"}, Config{}, optionsFor(dir), errors),
                    Catch::Contains("the Python front end (" + dir +
                                    ") failed with exit status 3; its standard error:\n"
                                    "cannot walk src/: permission denied"));
  CHECK(errors.empty());
}

TEST_CASE("Output that is not the front end's document is an error", "[python_front_end]") {
  std::vector<std::string> errors;
  const std::string garbage = fakeFrontEnd("garbage", kGarbageMain);
  CHECK_THROWS_WITH(collectPythonFacts({"a.py"}, Config{}, optionsFor(garbage), errors),
                    Catch::Contains("its output: not JSON"));
  const std::string schema = fakeFrontEnd("schema", kWrongSchemaMain);
  CHECK_THROWS_WITH(collectPythonFacts({"a.py"}, Config{}, optionsFor(schema), errors),
                    Catch::Contains("memfloor.pyfacts/1"));
  const std::string bad_errors = fakeFrontEnd("bad-errors", kBadErrorsMain);
  CHECK_THROWS_WITH(collectPythonFacts({"a.py"}, Config{}, optionsFor(bad_errors), errors),
                    Catch::Contains("its output: errors: expected a list of strings"));
  CHECK(errors.empty());
}

TEST_CASE("The front end's document is read without running it", "[python_front_end]") {
  std::vector<std::string> errors;
  const std::string facts =
      R"("facts": {"schema": "memfloor.facts/1", "units": ["a.py"], "records": {}, "fields": {},
                   "functions": {}, "events": [], "calls": [], "derefs": []})";
  const Facts read = readPythonFacts(R"({"schema": "memfloor.pyfacts/1", )" + facts +
                                         R"(, "errors": ["b.py: bad"], "files": 2, "bytes": 9})",
                                     "out", errors);
  CHECK(read.units == std::vector<std::string>{"a.py"});
  CHECK(errors == std::vector<std::string>{"b.py: bad"});
  CHECK_THROWS_WITH(readPythonFacts(R"({"schema": "memfloor.pyfacts/1", )" + facts +
                                        R"(, "errors": [], "files": -1, "bytes": 9})",
                                    "out", errors),
                    Catch::Contains("out: files: expected an unsigned integer"));
}

TEST_CASE("A missing interpreter or front end is named, with what to do", "[python_front_end]") {
  const std::string dir = fakeFrontEnd("echo-missing-python", kEchoMain);
  PythonOptions options = optionsFor(dir);
  options.python = "memfloor-no-such-python3";
  std::vector<std::string> errors;
  CHECK_THROWS_WITH(collectPythonFacts({"a.py"}, Config{}, options, errors),
                    Catch::Contains("cannot run 'memfloor-no-such-python3': No such file") &&
                        Catch::Contains("--python"));
  const std::string empty = (fs::path(dir) / "nothing-here").string();
  CHECK_THROWS_WITH(collectPythonFacts({"a.py"}, Config{}, optionsFor(empty), errors),
                    Catch::Contains("not in '" + empty + "': no memfloor_pyfacts/main.py"));
  // The test binary has no front end beside it: the install tree's place and the build tree's
  // are named.
  CHECK_THROWS_WITH(findPythonFrontEnd(), Catch::Contains("share/memfloor/checker-python' or '") &&
                                              Catch::Contains("/python'"));
}

TEST_CASE("Without Python inputs nothing is run", "[python_front_end]") {
  PythonOptions options;
  options.python = "memfloor-no-such-python3";
  options.front_end_dir = "/nonexistent";
  std::vector<std::string> errors;
  CHECK(collectPythonFacts({}, Config{}, options, errors).units.empty());
}

}  // namespace
}  // namespace memfloor::checker
