// Tests of common/process: the PATH search, a program's redirects, environment, exit status and
// signals, a forked function, and a child never left running or unwaited.
#include "common/process.h"

#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cerrno>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace memfloor::common {
namespace {

namespace fs = std::filesystem;

std::vector<std::string> shell(const std::string& script) { return {"/bin/sh", "-c", script}; }

// A folder of its own for the files a test writes, removed after it.
struct Scratch {
  fs::path dir =
      fs::temp_directory_path() / ("memfloor_process_test_" + std::to_string(::getpid()));
  Scratch() { fs::create_directories(dir); }
  ~Scratch() { fs::remove_all(dir); }
  std::string put(const std::string& name, const std::string& text, fs::perms perms) const {
    const fs::path path = dir / name;
    std::ofstream(path) << text;
    fs::permissions(path, perms);
    return path.string();
  }
};

std::string slurp(const std::string& path) {
  std::ostringstream text;
  text << std::ifstream(path).rdbuf();
  return text.str();
}

// Runs argv with the options, its standard output through a pipe: (exit status, output).
std::pair<ExitStatus, std::string> capture(const std::vector<std::string>& argv,
                                           ProgramOptions options = {}) {
  options.redirects[kStdout] = Redirect::pipe();
  Process child = startProgram(argv, options);
  REQUIRE(child.started());
  std::string out;
  readUntilEnd(child.pipe(kStdout).get(), [&](std::string_view data) { out += data; });
  return {child.wait(), out};
}

TEST_CASE("A program is found on PATH as execvp finds it", "[process]") {
  Scratch scratch;
  constexpr auto kRun = fs::perms::owner_read | fs::perms::owner_write | fs::perms::owner_exec;
  constexpr auto kRead = fs::perms::owner_read | fs::perms::owner_write;
  const std::string bin = (scratch.dir / "bin").string();
  fs::create_directories(bin);
  scratch.put("bin/tool", "#!/bin/sh\n", kRun);
  scratch.put("plain", "", kRead);               // not executable: passed over
  fs::create_directories(scratch.dir / "tool");  // a folder: passed over
  const std::string path = scratch.dir.string() + ":" + bin;
  CHECK(findProgramByName("tool", path) == bin + "/tool");
  CHECK(findProgramByName("plain", path).empty());
  CHECK(findProgramByName("missing", path).empty());
  CHECK(findProgramByName("", path).empty());
  CHECK(findProgramByName("./any/where", path) == "./any/where");  // a path: not searched
  CHECK(searchPathFolders("a::b:") == std::vector<std::string>{"a", ".", "b", "."});
  CHECK(searchPathFolders("") == std::vector<std::string>{"."});
  CHECK(isExecutableFile(bin + "/tool"));
  CHECK_FALSE(isExecutableFile(bin));
}

TEST_CASE("The exit status, and 128 + the signal that ended it", "[process]") {
  CHECK(capture(shell("exit 3")).first.exit_code == 3);
  const ExitStatus killed = capture(shell("kill -9 $$")).first;
  CHECK(killed.signal == SIGKILL);
  CHECK(killed.exit_code == kSignalExitBase + SIGKILL);
  Process child = startProgram(shell("exit 4"));
  CHECK(child.wait().exit_code == 4);
  CHECK(child.wait().exit_code == 4);  // asked again: the same
}

TEST_CASE("Arguments go without a shell, the environment exactly as given", "[process]") {
  CHECK(capture({"/bin/sh", "-c", "printf '%s|' \"$@\"", "sh", "a b", "$HOME", ";"}).second ==
        "a b|$HOME|;|");
  ProgramOptions options;
  options.environment = std::vector<std::string>{"ONLY=this"};
  CHECK(capture(shell("echo \"$ONLY ${HOME-unset}\""), options).second == "this unset\n");
  // Looked up on this process's PATH, by name.
  CHECK(capture({"sh", "-c", "echo found"}).second == "found\n");
}

TEST_CASE("Standard streams go to files, descriptors, /dev/null or pipes", "[process]") {
  Scratch scratch;
  constexpr auto kRead = fs::perms::owner_read | fs::perms::owner_write;
  ProgramOptions options;
  options.redirects = {Redirect::file(scratch.put("in.txt", "input\n", kRead)),
                       Redirect::file((scratch.dir / "out.txt").string()), Redirect::pipe()};
  Process child = startProgram(shell("cat; echo oops >&2"), options);
  std::string err;
  readUntilEnd(child.pipe(kStderr).get(), [&](std::string_view data) { err += data; });
  CHECK(child.wait().exit_code == 0);
  CHECK(slurp((scratch.dir / "out.txt").string()) == "input\n");
  CHECK(err == "oops\n");

  Pipe pipe;
  REQUIRE(pipe.open());
  options.redirects = {Redirect::null(), Redirect::fromFd(pipe.write.get()), Redirect::inherit()};
  Process writer = startProgram(shell("cat; echo through"), options);
  pipe.write.reset();
  std::string out;
  readUntilEnd(pipe.read.get(), [&](std::string_view data) { out += data; });
  CHECK(writer.wait().exit_code == 0);
  CHECK(out == "through\n");  // standard input was empty

  options.redirects = {Redirect::pipe(), Redirect::pipe(), Redirect::inherit()};
  Process echo = startProgram({"cat"}, options);
  CHECK(::write(echo.pipe(kStdin).get(), "back", 4) == 4);
  echo.pipe(kStdin).reset();
  out.clear();
  readUntilEnd(echo.pipe(kStdout).get(), [&](std::string_view data) { out += data; });
  CHECK(echo.wait().exit_code == 0);
  CHECK(out == "back");
}

TEST_CASE("A program that cannot start says why", "[process]") {
  Process missing = startProgram({"memfloor-no-such-program"});
  CHECK_FALSE(missing.started());
  CHECK(missing.error() == "No such file or directory");
  CHECK(startProgram({"/no/such/program"}).error() == "No such file or directory");
  CHECK(startProgram({}).error() == "no command given");
  ProgramOptions options;
  options.redirects[kStdin] = Redirect::file("/no/such/input");
  CHECK_FALSE(startProgram({"true"}, options).started());

  // A file of that name on PATH that may not be executed: execvp's EACCES.
  Scratch scratch;
  scratch.put("plain", "", fs::perms::owner_read | fs::perms::owner_write);
  const std::string path = searchPath();
  ::setenv("PATH", scratch.dir.c_str(), 1);
  const std::string denied = startProgram({"plain"}).error();
  ::setenv("PATH", path.c_str(), 1);
  CHECK(denied == "Permission denied");
}

TEST_CASE("A file without a #! line runs under /bin/sh, as execvp runs it", "[process]") {
  Scratch scratch;
  const std::string script =
      scratch.put("script", "echo \"script $1\"\n",
                  fs::perms::owner_read | fs::perms::owner_write | fs::perms::owner_exec);
  const auto [status, out] = capture({script, "ran"});
  CHECK(status.exit_code == 0);
  CHECK(out == "script ran\n");
}

TEST_CASE("The child's signal mask and default actions are the caller's to set", "[process]") {
  struct sigaction ignore {};
  ignore.sa_handler = SIG_IGN;
  struct sigaction previous {};
  ::sigaction(SIGUSR1, &ignore, &previous);
  const std::vector<std::string> raise = shell("kill -USR1 $$; echo alive");
  CHECK(capture(raise).second == "alive\n");  // ignored here, ignored there
  ProgramOptions options;
  options.default_signals = {SIGUSR1};
  CHECK(capture(raise, options).first.signal == SIGUSR1);
  ::sigaction(SIGUSR1, &previous, nullptr);

  sigset_t blocked;
  sigemptyset(&blocked);
  sigaddset(&blocked, SIGTERM);
  options = {};
  options.signal_mask = blocked;
  CHECK(capture(shell("kill -TERM $$; echo alive"), options).second == "alive\n");
}

TEST_CASE("A function runs in a forked copy that exits with its result", "[process]") {
  int touched = 0;
  Process child = startFunction([&] {
    touched = 1;  // in the copy only
    return 7;
  });
  REQUIRE(child.started());
  CHECK(child.wait().exit_code == 7);
  CHECK(touched == 0);
  Process thrower = startFunction([]() -> int { throw 1; });
  CHECK(thrower.wait().exit_code == 127);
}

TEST_CASE("A child never waited for is killed and reaped with its Process", "[process]") {
  pid_t pid = 0;
  {
    Process child = startProgram({"sleep", "100"});
    REQUIRE(child.started());
    pid = child.pid();
    Process moved(std::move(child));
    CHECK(moved.pid() == pid);
    CHECK(child.pid() == 0);  // NOLINT(bugprone-use-after-move): moved from holds none
  }
  CHECK(::kill(pid, 0) < 0);
  CHECK(errno == ESRCH);  // no zombie left either
}

}  // namespace
}  // namespace memfloor::common
