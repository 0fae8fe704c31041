// memfloor run: argument handling, environment setup and exit-code passthrough (non-CUDA child).
#include "cli/run_command.h"

#include <sys/stat.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <catch2/catch.hpp>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "analysis/iteration_tracker.h"
#include "cli/child_process.h"
#include "cli/command.h"
#include "common/error.h"

using namespace memfloor;
using namespace memfloor::cli;

namespace {

std::string tempDir() {
  char pattern[] = "/tmp/memfloor-run-test-XXXXXX";
  REQUIRE(::mkdtemp(pattern) != nullptr);
  return pattern;
}

// A stand-in hook: a non-CUDA child never loads it, so any regular file will do.
std::string fakeHook(const std::string& dir) {
  std::string path = dir + "/libmemfloor_hook.so";
  std::ofstream(path) << "not a library";
  return path;
}

int runCli(std::vector<std::string> args) {
  CLI::App app;
  int exit_code = -1;
  addRunCommand(app, exit_code);
  std::reverse(args.begin(), args.end());
  app.parse(args);  // CLI11 takes the arguments reversed
  return exit_code;
}

bool has(const std::vector<std::string>& env, const std::string& entry) {
  return std::find(env.begin(), env.end(), entry) != env.end();
}

}  // namespace

TEST_CASE("the traced environment points CUDA and NVTX at the hook", "[runtime_hook][run]") {
  RunRequest request;
  request.stacks = "none";
  request.iteration_pattern = "step";
  request.buffer_size = "4m";
  request.census = "2,10";
  request.modules = true;
  std::vector<std::string> notes;
  std::vector<std::string> env =
      tracedEnvironment(request, "/x/libmemfloor_hook.so", "/out", {"PATH=/bin"}, notes);
  CHECK(has(env, "PATH=/bin"));
  CHECK(has(env, "CUDA_INJECTION64_PATH=/x/libmemfloor_hook.so"));
  CHECK(has(env, "NVTX_INJECTION64_PATH=/x/libmemfloor_hook.so"));
  CHECK(has(env, "MEMFLOOR_OUTPUT_DIR=/out"));
  CHECK(has(env, "MEMFLOOR_STACKS=none"));
  CHECK(has(env, "MEMFLOOR_BUFFER_SIZE=4m"));
  CHECK(has(env, "MEMFLOOR_ITERATION_PATTERN=step"));
  CHECK(has(env, "MEMFLOOR_CENSUS=2,10"));
  CHECK(has(env, "MEMFLOOR_CENSUS_RANGES=step"));
  CHECK(has(env, "MEMFLOOR_MODULES=1"));
  CHECK(notes.empty());
}

TEST_CASE("the companion's census waits for ranges named as the analysis names iterations",
          "[runtime_hook][run]") {
  std::vector<std::string> notes;
  std::vector<std::string> env = tracedEnvironment(RunRequest{}, "/h.so", "/out", {}, notes);
  CHECK(has(env, "MEMFLOOR_CENSUS_RANGES=" + std::string(analysis::kDefaultIterationPattern)));
  CHECK_FALSE(std::any_of(env.begin(), env.end(), [](const std::string& e) {
    return e.rfind("MEMFLOOR_ITERATION_PATTERN=", 0) == 0;  // the trace keeps the analysis' own
  }));
  CHECK_FALSE(std::any_of(env.begin(), env.end(), [](const std::string& e) {
    return e.rfind("MEMFLOOR_MODULES=", 0) == 0;  // module paths only when asked for
  }));
}

TEST_CASE("torch-allocator async respects a user's PYTORCH_CUDA_ALLOC_CONF",
          "[runtime_hook][run]") {
  RunRequest request;
  request.torch_allocator = "async";
  std::vector<std::string> notes;
  std::vector<std::string> env = tracedEnvironment(request, "/h.so", "/out", {}, notes);
  CHECK(has(env, "PYTORCH_CUDA_ALLOC_CONF=backend:cudaMallocAsync"));
  REQUIRE(notes.size() == 1);
  CHECK(notes[0].find("backend:cudaMallocAsync") != std::string::npos);

  notes.clear();
  env = tracedEnvironment(request, "/h.so", "/out",
                          {"PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True"}, notes);
  CHECK(has(env, "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True"));
  CHECK_FALSE(has(env, "PYTORCH_CUDA_ALLOC_CONF=backend:cudaMallocAsync"));
  REQUIRE(notes.size() == 1);
  CHECK(notes[0].find("left as is") != std::string::npos);

  request.torch_allocator.clear();
  notes.clear();
  env = tracedEnvironment(request, "/h.so", "/out", {}, notes);
  CHECK(std::none_of(env.begin(), env.end(), [](const std::string& e) {
    return e.rfind("PYTORCH_CUDA_ALLOC_CONF=", 0) == 0;
  }));
}

TEST_CASE("a foreign NVTX injection is kept and the user told", "[runtime_hook][run]") {
  RunRequest request;
  std::vector<std::string> notes;
  std::vector<std::string> env =
      tracedEnvironment(request, "/h.so", "/out",
                        {"NVTX_INJECTION64_PATH=/other.so", "CUDA_INJECTION64_PATH=/a.so"}, notes);
  CHECK(has(env, "NVTX_INJECTION64_PATH=/other.so"));
  CHECK(has(env, "CUDA_INJECTION64_PATH=/h.so"));
  CHECK(notes.size() == 2);
}

TEST_CASE("exit codes pass through, signals become 128+n", "[runtime_hook][run]") {
  std::string dir = tempDir();
  RunRequest request;
  request.hook_path = fakeHook(dir);
  request.output_dir = dir + "/out";
  request.quiet = true;

  request.command = {"sh", "-c", "exit 0"};
  CHECK(runTraced(request) == 0);
  request.command = {"sh", "-c", "exit 3"};
  CHECK(runTraced(request) == 3);
  request.command = {"sh", "-c", "kill -TERM $$"};
  CHECK(runTraced(request) == 128 + SIGTERM);
  request.command = {"sh", "-c", "kill -KILL $$"};
  CHECK(runTraced(request) == 128 + SIGKILL);
  struct stat st;
  CHECK(::stat((dir + "/out").c_str(), &st) == 0);  // -o is created

  // The child sees the injection variables.
  request.command = {"sh", "-c",
                     "test \"$CUDA_INJECTION64_PATH\" = \"" + request.hook_path +
                         "\" && test \"$MEMFLOOR_STACKS\" = auto && "
                         "test \"$MEMFLOOR_OUTPUT_DIR\" = \"" +
                         dir + "/out\""};
  CHECK(runTraced(request) == 0);
  CHECK(std::system(("rm -rf " + dir).c_str()) == 0);
}

TEST_CASE("a signal sent to memfloor reaches the child", "[runtime_hook][run]") {
  // The child waits for SIGTERM; a helper sends it to the *parent* (this process): the handler
  // forwards it, the child's trap exits 42.
  std::string dir = tempDir();
  RunRequest request;
  request.hook_path = fakeHook(dir);
  request.output_dir = dir;
  request.quiet = true;
  request.command = {"sh", "-c",
                     "trap 'exit 42' TERM; kill -TERM $PPID; i=0; "
                     "while [ $i -lt 100 ]; do sleep 0.05; i=$((i+1)); done; exit 1"};
  CHECK(runTraced(request) == 42);
  CHECK(std::system(("rm -rf " + dir).c_str()) == 0);
}

TEST_CASE("a missing hook or command is exit code 2", "[runtime_hook][run]") {
  std::string dir = tempDir();
  RunRequest request;
  request.output_dir = dir;
  request.quiet = true;
  request.command = {"true"};
  request.hook_path = dir + "/nope.so";
  CHECK(runTraced(request) == kExitError);

  request.hook_path = fakeHook(dir);
  request.command = {"/no/such/program"};
  CHECK(runTraced(request) == kExitError);
  request.command = {"memfloor-no-such-program-anywhere"};
  CHECK(runTraced(request) == kExitError);

  ChildResult r = runChild({"/no/such/program"}, {});
  CHECK_FALSE(r.started);
  CHECK(r.error == "cannot start '/no/such/program': No such file or directory");
  CHECK(std::system(("rm -rf " + dir).c_str()) == 0);
}

TEST_CASE("the command line: options before --, the program's own options after",
          "[runtime_hook][run]") {
  std::string dir = tempDir();
  std::string hook = fakeHook(dir);
  CHECK(runCli({"run", "-q", "--hook", hook, "-o", dir, "--stacks", "none", "--", "sh", "-c",
                "exit 5", "--stacks", "bogus"}) == 5);
  // Without --, everything from the program name on belongs to the program.
  CHECK(runCli({"run", "-q", "--hook", hook, "-o", dir, "sh", "-c", "exit 6", "-o", "x"}) == 6);
  CHECK_THROWS_AS(runCli({"run", "--stacks", "pyhton", "--", "true"}), CLI::ValidationError);
  CHECK_THROWS_AS(runCli({"run", "--torch-allocator", "fast", "--", "true"}), CLI::ValidationError);
  CHECK_THROWS_AS(
      runCli({"run", "-q", "--hook", hook, "-o", dir, "--buffer-size", "lots", "--", "true"}),
      Error);
  CHECK_THROWS_AS(runCli({"run"}), Error);
  CHECK_THROWS_AS(runCli({"run", "--"}), Error);
  CHECK(std::system(("rm -rf " + dir).c_str()) == 0);
}

TEST_CASE(
    "the census schedule: a mode or the optimizer steps, passed to the child as MEMFLOOR_CENSUS",
    "[runtime_hook][run]") {
  std::string dir = tempDir();
  std::string hook = fakeHook(dir);
  auto census = [&](const std::string& value, const std::string& expected) {
    return runCli({"run", "-q", "--hook", hook, "-o", dir, "--census", value, "--", "sh", "-c",
                   "test \"$MEMFLOOR_CENSUS\" = '" + expected + "'"});
  };
  CHECK(runCli({"run", "-q", "--hook", hook, "-o", dir, "--", "sh", "-c",
                "test \"$MEMFLOOR_CENSUS\" = auto"}) == 0);
  for (const char* value : {"auto", "every", "off", "3", "2,10", "010,4"}) {
    CHECK(census(value, value) == 0);
  }
  for (const char* bad : {"0", "3,x", "", "2,", ",2", "2.5", "Auto", "3, 4", "1234567890"}) {
    CAPTURE(bad);
    CHECK_THROWS_WITH(census(bad, ""), Catch::Contains("--census must be auto, every, off or "
                                                       "optimizer steps such as 2,10"));
  }
  CHECK(std::system(("rm -rf " + dir).c_str()) == 0);
}

TEST_CASE("the Python companion goes first on PYTHONPATH, the user's path after it",
          "[runtime_hook][run]") {
  RunRequest request;
  request.companion_dir = "/opt/memfloor/companion";
  std::vector<std::string> notes;
  std::vector<std::string> env = tracedEnvironment(request, "/h.so", "/out", {}, notes);
  CHECK(has(env, "PYTHONPATH=/opt/memfloor/companion"));
  env = tracedEnvironment(request, "/h.so", "/out", {"PYTHONPATH=/src:/lib"}, notes);
  CHECK(has(env, "PYTHONPATH=/opt/memfloor/companion:/src:/lib"));
  request.companion_dir.clear();  // --no-companion, or not found
  env = tracedEnvironment(request, "/h.so", "/out", {"PYTHONPATH=/src"}, notes);
  CHECK(has(env, "PYTHONPATH=/src"));
  CHECK(notes.empty());
}

TEST_CASE("the companion is found through MEMFLOOR_PYTHON_DIR", "[runtime_hook][run]") {
  std::string dir = tempDir();
  std::ofstream(dir + "/sitecustomize.py") << "\n";
  ::setenv("MEMFLOOR_PYTHON_DIR", dir.c_str(), 1);
  CHECK(findCompanion() == std::filesystem::weakly_canonical(dir).string());
  ::setenv("MEMFLOOR_PYTHON_DIR", "/nonexistent", 1);
  CHECK(findCompanion().empty());
  ::unsetenv("MEMFLOOR_PYTHON_DIR");
}
