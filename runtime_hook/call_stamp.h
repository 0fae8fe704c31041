// When and where a call ran: CUPTI's clock (the clock of the activity records) and the OS thread
// id, the two things every record written from a callback carries.
#pragma once

#include <cstdint>

namespace memfloor::hook {

struct CallStamp {
  uint64_t timestamp = 0;    // CUPTI's clock, ns
  uint64_t thread = 0;       // OS thread id
  uint32_t correlation = 0;  // the driver call's CUPTI correlation id, 0 if none
};

// cuptiGetTimestamp, 0 if it fails.
uint64_t cuptiNow();

// The wall clock (CLOCK_REALTIME), ns since the Unix epoch.
uint64_t wallNow();

// The calling thread's OS id (gettid), cached per thread.
uint64_t osThreadId();

}  // namespace memfloor::hook
