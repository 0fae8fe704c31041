// Signal and exit flushing: each case runs in a forked child (signal dispositions are
// process-wide) that traces into a real file, and the parent reads what the child left.
#include "runtime_hook/exit_flush.h"

#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <csignal>
#include <cstdlib>
#include <string>

#include "runtime_hook/trace_output.h"
#include "trace/reader.h"
#include "trace/sink.h"
#include "trace/source.h"

using namespace memfloor;

namespace {

hook::TraceOutput* g_out = nullptr;
volatile sig_atomic_t g_program_handler_ran = 0;

void flushAction(bool final, void*) {
  if (final) {
    g_out->finish(1000000);
  } else {
    g_out->flush();
  }
}

void programHandler(int) { g_program_handler_ran = 1; }

std::string tracePath(const char* name) {
  return "/tmp/memfloor-exit-flush-" + std::to_string(::getpid()) + "-" + name + ".mftrace";
}

// In the child: open the trace, write a few records, install the flusher.
void startTracing(const std::string& path) {
  int fd = trace::FileSink::createExclusive(path.c_str());
  if (fd < 0) ::_exit(90);
  g_out = new hook::TraceOutput(std::make_unique<trace::FileSink>(fd), 1 << 16);
  if (!g_out->begin()) ::_exit(91);
  for (uint64_t i = 1; i <= 100; ++i) {
    trace::Alloc a;
    a.timestamp = i;
    a.address = i << 12;
    a.size = 4096;
    g_out->write(a);
  }
  if (!hook::installExitFlush(flushAction, nullptr)) ::_exit(92);
}

struct Outcome {
  int status = 0;
  trace::Ending ending = trace::Ending::kCorrupt;
  size_t allocs = 0;
};

template <class Body>
Outcome runChild(const std::string& path, Body body) {
  std::fflush(nullptr);
  pid_t pid = ::fork();
  if (pid == 0) {
    // Catch2's own fatal-signal handlers would stand in for "the program's"; start clean.
    for (int sig : {SIGTERM, SIGINT, SIGHUP, SIGQUIT}) ::signal(sig, SIG_DFL);
    body();
    ::_exit(93);  // bodies end the process themselves
  }
  Outcome outcome;
  REQUIRE(pid > 0);
  REQUIRE(::waitpid(pid, &outcome.status, 0) == pid);
  trace::FileSource source(path);
  trace::FileOrderReader reader(source);
  trace::Record r;
  while (reader.next(r)) outcome.allocs += std::holds_alternative<trace::Alloc>(r) ? 1 : 0;
  outcome.ending = reader.end().ending;
  ::unlink(path.c_str());
  return outcome;
}

}  // namespace

TEST_CASE("a normal exit writes the trailer", "[runtime_hook]") {
  std::string path = tracePath("exit");
  Outcome o = runChild(path, [&] {
    startTracing(path);
    std::exit(0);
  });
  CHECK(WIFEXITED(o.status));
  CHECK(WEXITSTATUS(o.status) == 0);
  CHECK(o.ending == trace::Ending::kTrailer);
  CHECK(o.allocs == 100);
}

TEST_CASE("SIGTERM with the default action: trailer, then death by SIGTERM", "[runtime_hook]") {
  std::string path = tracePath("term");
  Outcome o = runChild(path, [&] {
    startTracing(path);
    ::raise(SIGTERM);
    ::_exit(94);  // not reached: the chained default action ends the process
  });
  REQUIRE(WIFSIGNALED(o.status));
  CHECK(WTERMSIG(o.status) == SIGTERM);
  CHECK(o.ending == trace::Ending::kTrailer);
  CHECK(o.allocs == 100);
}

TEST_CASE("SIGINT handled by the program: flushed, chained, the program runs on",
          "[runtime_hook]") {
  std::string path = tracePath("int");
  Outcome o = runChild(path, [&] {
    ::signal(SIGINT, programHandler);  // installed before the hook, like Python's
    startTracing(path);
    ::raise(SIGINT);
    if (g_program_handler_ran != 1) ::_exit(95);
    // Flushed but not finished: the records are on disk and tracing goes on.
    trace::Alloc later;
    later.timestamp = 500;
    later.address = 1;
    later.size = 1;
    g_out->write(later);
    std::exit(7);
  });
  REQUIRE(WIFEXITED(o.status));
  CHECK(WEXITSTATUS(o.status) == 7);
  CHECK(o.ending == trace::Ending::kTrailer);
  CHECK(o.allocs == 101);
}

TEST_CASE("a signal the program ignores stays ignored", "[runtime_hook]") {
  std::string path = tracePath("ign");
  Outcome o = runChild(path, [&] {
    ::signal(SIGHUP, SIG_IGN);
    startTracing(path);
    ::raise(SIGHUP);
    std::exit(3);
  });
  REQUIRE(WIFEXITED(o.status));
  CHECK(WEXITSTATUS(o.status) == 3);
  CHECK(o.ending == trace::Ending::kTrailer);
}

TEST_CASE("SIGKILL leaves every sealed chunk readable", "[runtime_hook]") {
  std::string path = tracePath("kill");
  Outcome o = runChild(path, [&] {
    startTracing(path);
    g_out->flush();  // what the hook does after every CUPTI buffer
    trace::Alloc unsealed;
    unsealed.address = 99;
    g_out->write(unsealed);  // still in the chunk buffer: lost with the process
    ::raise(SIGKILL);
  });
  REQUIRE(WIFSIGNALED(o.status));
  CHECK(WTERMSIG(o.status) == SIGKILL);
  CHECK(o.ending == trace::Ending::kTruncated);
  CHECK(o.allocs == 100);
}

TEST_CASE("a forked child never writes its parent's trace", "[runtime_hook]") {
  std::string path = tracePath("fork");
  Outcome o = runChild(path, [&] {
    startTracing(path);
    g_out->flush();
    pid_t grandchild = ::fork();
    if (grandchild == 0) {
      ::raise(SIGTERM);  // handler chains straight to the default action
      std::exit(0);      // atexit: disabled in the child
    }
    int status = 0;
    ::waitpid(grandchild, &status, 0);
    if (!WIFSIGNALED(status) || WTERMSIG(status) != SIGTERM) ::_exit(96);
    pid_t second = ::fork();
    if (second == 0) std::exit(0);  // atexit runs, but is disabled in a forked child
    ::waitpid(second, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) ::_exit(97);
    std::exit(0);
  });
  REQUIRE(WIFEXITED(o.status));
  CHECK(WEXITSTATUS(o.status) == 0);
  CHECK(o.ending == trace::Ending::kTrailer);  // one trailer, the parent's, file intact
  CHECK(o.allocs == 100);
}
