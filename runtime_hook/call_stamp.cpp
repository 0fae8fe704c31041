// CUPTI's clock and the OS thread id.
#include "runtime_hook/call_stamp.h"

#include <cupti.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "common/units.h"

namespace memfloor::hook {

uint64_t cuptiNow() {
  uint64_t ts = 0;
  if (cuptiGetTimestamp(&ts) != CUPTI_SUCCESS) return 0;
  return ts;
}

uint64_t wallNow() {
  timespec wall{};
  ::clock_gettime(CLOCK_REALTIME, &wall);
  return static_cast<uint64_t>(wall.tv_sec) * units::kNsPerS + static_cast<uint64_t>(wall.tv_nsec);
}

uint64_t osThreadId() {
  thread_local uint64_t tid = static_cast<uint64_t>(::syscall(SYS_gettid));
  return tid;
}

}  // namespace memfloor::hook
