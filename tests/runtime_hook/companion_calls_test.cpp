// The companion's block events and Python frames as trace records.
#include "runtime_hook/companion_calls.h"

#include <catch2/catch.hpp>

using namespace memfloor;

TEST_CASE("wall-clock times move onto CUPTI's clock by the offset of one moment",
          "[runtime_hook]") {
  hook::ClockPair ahead{5000, 1000};  // CUPTI's clock 4000 ns ahead of the wall clock
  CHECK(hook::toCuptiTime(1500, ahead) == 5500);
  hook::ClockPair behind{1000, 5000};
  CHECK(hook::toCuptiTime(4500, behind) == 500);
  CHECK(hook::toCuptiTime(3000, behind) == 0);  // before CUPTI's epoch: clamped, never wrapped
}

TEST_CASE("the clocks' pair is read at one moment", "[runtime_hook]") {
  hook::ClockPair now = hook::clockPairNow();
  CHECK(now.unix_ns > 0);
}

TEST_CASE("block events become block allocations and frees", "[runtime_hook]") {
  hook::ClockPair now{2000, 1000};
  memfloor_block_event_v1 event{};
  event.unix_ns = 1100;
  event.address = 0x7f0000001000;
  event.size = 4096;
  event.stream = 2;
  event.device = 1;
  event.stack = 7;
  event.type = MEMFLOOR_BLOCK_ALLOC;
  std::optional<trace::Record> alloc = hook::blockRecord(event, now);
  REQUIRE(alloc);
  const auto* a = std::get_if<trace::Alloc>(&*alloc);
  REQUIRE(a != nullptr);
  CHECK(a->timestamp == 2100);
  CHECK(a->kind == trace::MemoryKind::kBlock);
  CHECK(a->address == 0x7f0000001000);
  CHECK(a->size == 4096);
  CHECK(a->stream == 2);
  CHECK(a->device == 1);
  CHECK(a->stack == 7);
  CHECK(a->flags == 0);

  event.type = MEMFLOOR_BLOCK_FREE;
  std::optional<trace::Record> free = hook::blockRecord(event, now);
  REQUIRE(free);
  CHECK(std::get_if<trace::Free>(&*free) != nullptr);

  event.type = 9;
  CHECK_FALSE(hook::blockRecord(event, now));
}

TEST_CASE("Python frames with null strings read as empty", "[runtime_hook]") {
  memfloor_python_frame_v1 frames[] = {{"train.py", "step", 3, 0}, {nullptr, nullptr, 0, 0}};
  std::vector<hook::StackTable::PythonFrame> out = hook::pythonFrames(frames, 2);
  REQUIRE(out.size() == 2);
  CHECK(out[0].file == "train.py");
  CHECK(out[0].function == "step");
  CHECK(out[0].line == 3);
  CHECK(out[1].file.empty());
  CHECK(hook::pythonFrames(nullptr, 3).empty());
}
