// Joining MEMORY2 records to driver callbacks: the table and the stale-id guard.
#include "runtime_hook/correlation_table.h"

#include <atomic>
#include <catch2/catch.hpp>
#include <thread>
#include <vector>

using namespace memfloor::hook;

TEST_CASE("entries are found by correlation id until overwritten", "[runtime_hook]") {
  CorrelationTable table(4);  // 16 slots
  CallInfo in{7, 4096, 3, kCallAlloc | kKeyIsSize};
  table.put(100, in);
  CallInfo out;
  REQUIRE(table.get(100, out));
  CHECK(out.thread == 7);
  CHECK(out.key == 4096);
  CHECK(out.stack == 3);
  CHECK(out.flags == (kCallAlloc | kKeyIsSize));
  CHECK_FALSE(table.get(101, out));
  CHECK_FALSE(table.get(0, out));
  table.put(116, CallInfo{8, 1, 0, kCallFree | kKeyIsAddress});  // same slot
  CHECK_FALSE(table.get(100, out));
  REQUIRE(table.get(116, out));
  CHECK(out.thread == 8);
}

TEST_CASE("a record joins a call only if direction and size or address agree", "[runtime_hook]") {
  CallInfo alloc{1, 4096, 9, kCallAlloc | kKeyIsSize};
  CHECK(belongsTo(alloc, true, 0x1000, 4096));
  CHECK_FALSE(belongsTo(alloc, true, 0x1000, 8192));  // another call's record under a stale id
  CHECK_FALSE(belongsTo(alloc, false, 0x1000, 4096));
  CallInfo free{1, 0x1000, 0, kCallFree | kKeyIsAddress};
  CHECK(belongsTo(free, false, 0x1000, 4096));
  CHECK_FALSE(belongsTo(free, false, 0x2000, 4096));
  CallInfo vmm_unmap{1, 0x7f00, 0, kCallVmm | kCallFree | kKeyIsAddress};
  CHECK(belongsTo(vmm_unmap, false, 0x7f00, 2 << 20));
  // The measured case: with --stacks none a cudaFree after cuMemUnmap carried the unmap's id.
  CHECK_FALSE(belongsTo(vmm_unmap, false, 0x9000, 1 << 20));
  CallInfo unknown{1, 0, 0, kCallAlloc | kKeyIsSize};
  CHECK_FALSE(belongsTo(unknown, true, 0x1000, 0));
}

TEST_CASE("concurrent puts and gets never return a torn entry", "[runtime_hook]") {
  CorrelationTable table(6);
  std::atomic<int> torn{0};  // Catch2's assertions are not thread-safe: count, check after
  std::vector<std::thread> threads;
  for (uint32_t t = 0; t < 4; ++t) {
    threads.emplace_back([&table, &torn, t] {
      for (uint32_t i = 1; i < 20000; ++i) {
        uint32_t id = i * 4 + t;
        table.put(id, CallInfo{id, uint64_t{id} * 2, id & 0xffff, kCallAlloc});
        CallInfo out;
        if (table.get(id, out) && (out.thread != id || out.key != uint64_t{id} * 2)) ++torn;
      }
    });
  }
  for (std::thread& th : threads) th.join();
  CHECK(torn == 0);
}
