// Tests of cli/child_process (`memfloor run`'s child): exit status and signals, the environment as
// given, standard output to a descriptor, a program that cannot start, and signals forwarded.
#include "cli/child_process.h"

#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

namespace memfloor::cli {
namespace {

namespace fs = std::filesystem;

// A folder of this process's, made where it is asked for; each test removes it after.
fs::path scratch() {
  const fs::path dir =
      fs::temp_directory_path() / ("memfloor_child_test_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  return dir;
}

TEST_CASE("A child's exit status, or 128 + the signal that ended it", "[child_process]") {
  ChildResult r = runChild({"sh", "-c", "exit 5"}, {});
  CHECK(r.started);
  CHECK(r.exit_code == 5);
  CHECK(r.signal == 0);
  r = runChild({"/bin/sh", "-c", "kill -TERM $$"}, {});
  CHECK(r.signal == SIGTERM);
  CHECK(r.exit_code == 128 + SIGTERM);
}

TEST_CASE("The environment is exactly the one given, standard output where asked",
          "[child_process]") {
  const fs::path out = scratch() / "out.txt";
  FILE* file = std::fopen(out.c_str(), "w");
  REQUIRE(file != nullptr);
  const ChildResult r =
      runChild({"/bin/sh", "-c", "echo \"$ONLY ${HOME-unset}\""}, {"ONLY=given"}, ::fileno(file));
  std::fclose(file);
  CHECK(r.exit_code == 0);
  std::ostringstream text;
  text << std::ifstream(out).rdbuf();
  CHECK(text.str() == "given unset\n");
  fs::remove_all(scratch());
}

TEST_CASE("A program that cannot start is named with the reason", "[child_process]") {
  ChildResult r = runChild({"/no/such/program"}, {});
  CHECK_FALSE(r.started);
  CHECK(r.error == "cannot start '/no/such/program': No such file or directory");
  r = runChild({"memfloor-no-such-program-anywhere"}, {});
  CHECK(r.error == "cannot start 'memfloor-no-such-program-anywhere': No such file or directory");
  CHECK(runChild({}, {}).error == "no command given");
}

TEST_CASE("A signal sent to memfloor while the child runs is forwarded to it", "[child_process]") {
  const fs::path ready = scratch() / "ready";
  std::thread sender([&] {
    for (int i = 0; i < 1000 && !fs::exists(ready); ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    ::kill(::getpid(), SIGUSR1);  // from a process (SI_USER): forwarded
  });
  const ChildResult r =
      runChild({"/bin/sh", "-c", "trap 'exit 7' USR1; touch \"$1\"; while :; do sleep 0.05; done",
                "sh", ready.string()},
               {"PATH=/usr/bin:/bin"});
  sender.join();
  CHECK(r.exit_code == 7);  // its trap ran: the signal reached it
  fs::remove_all(scratch());
}

}  // namespace
}  // namespace memfloor::cli
