// Tests of the child process runner: both outputs captured without a stall, exit status, signals,
// a program that cannot start, output past the limit.
#include "checker/subprocess.h"

#include <catch2/catch.hpp>
#include <csignal>

#include "common/error.h"

namespace memfloor::checker {
namespace {

constexpr std::size_t kNoLimit = std::size_t{1} << 30;
// More than a pipe holds (64 KiB): a reader of one stream at a time would stall the child.
constexpr std::size_t kLarge = std::size_t{1} << 20;

std::vector<std::string> shell(const std::string& script) { return {"/bin/sh", "-c", script}; }

TEST_CASE("Both outputs are read as they come, however large", "[subprocess]") {
  const std::string count = std::to_string(kLarge);
  const SubprocessResult r = runSubprocess(
      shell("head -c " + count + " /dev/zero >&2; head -c " + count + " /dev/zero; echo end"),
      kNoLimit);
  CHECK(r.exit_code == 0);
  CHECK(r.signal == 0);
  CHECK(r.out.size() == kLarge + 4);
  CHECK(r.out.joined().substr(kLarge) == "end\n");
  CHECK(r.out.pieces.front().size() == kOutPieceBytes);  // pieces allocated once each
  CHECK_FALSE(r.out_truncated);
  CHECK(r.err.size() == kMaxSubprocessErrBytes);  // the start of standard error only
}

TEST_CASE("The exit status and the ending signal are reported", "[subprocess]") {
  const SubprocessResult failed = runSubprocess(shell("echo oops >&2; exit 3"), kNoLimit);
  CHECK(failed.exit_code == 3);
  CHECK(failed.err == "oops\n");
  const SubprocessResult killed = runSubprocess(shell("kill -9 $$"), kNoLimit);
  CHECK(killed.signal == SIGKILL);
  CHECK(killed.exit_code == 128 + SIGKILL);  // the shell's convention
}

TEST_CASE("Standard input is empty and arguments are passed without a shell", "[subprocess]") {
  const SubprocessResult r = runSubprocess(
      {"/bin/sh", "-c", "cat; printf '%s|' \"$@\"", "sh", "a b", "$HOME", ";"}, kNoLimit);
  CHECK(r.exit_code == 0);
  CHECK(r.out.joined() == "a b|$HOME|;|");
}

TEST_CASE("Output past the limit is read but not kept", "[subprocess]") {
  const SubprocessResult r = runSubprocess(shell("echo 0123456789"), 4);
  CHECK(r.exit_code == 0);
  CHECK(r.out.joined() == "0123");
  CHECK(r.out_truncated);
}

TEST_CASE("A program that cannot start is an error naming it", "[subprocess]") {
  CHECK_THROWS_WITH(runSubprocess({"memfloor-no-such-program"}, kNoLimit),
                    Catch::Contains("cannot run 'memfloor-no-such-program': No such file"));
  CHECK_THROWS_AS(runSubprocess({"/nonexistent/bin/python3", "-c", "pass"}, kNoLimit), Error);
  CHECK_THROWS_AS(runSubprocess({}, kNoLimit), Error);
}

}  // namespace
}  // namespace memfloor::checker
