// What records written from callbacks are stamped with: the OS thread id and CUPTI's clock.
#include "runtime_hook/call_stamp.h"

#include <sys/syscall.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <thread>

using namespace memfloor::hook;

TEST_CASE("the thread id is the OS's, one per thread", "[runtime_hook]") {
  uint64_t here = osThreadId();
  CHECK(here == static_cast<uint64_t>(::syscall(SYS_gettid)));
  CHECK(osThreadId() == here);
  uint64_t there = 0;
  uint64_t there_os = 0;
  std::thread other([&] {
    there = osThreadId();
    there_os = static_cast<uint64_t>(::syscall(SYS_gettid));
  });
  other.join();
  CHECK(there == there_os);
  CHECK(there != here);
}

TEST_CASE("CUPTI's clock does not run backwards", "[runtime_hook]") {
  uint64_t first = cuptiNow();
  uint64_t second = cuptiNow();
  CHECK(second >= first);
}
