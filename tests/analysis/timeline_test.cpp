// Tests of Timeline: phases, running floors and peaks, slots created late.
#include "analysis/timeline.h"

#include <catch2/catch.hpp>

#include "common/error.h"
#include "invariants.h"

namespace memfloor::analysis {
namespace {

using trace::MemoryKind;

TEST_CASE("Timeline keeps peak and floor of each phase", "[timeline]") {
  Timeline t;
  uint16_t d0 = t.slotFor({0, MemoryKind::kDevice});
  t.onAlloc(d0, 100, 1);  // prelude: weights
  t.beginIteration();
  t.onAlloc(d0, 50, 2);
  t.onFree(d0, 30);
  t.onAlloc(d0, 10, 3);
  t.endIteration();
  t.onFree(d0, 20);  // the idle window dips to 110
  t.onAlloc(d0, 5, 4);
  t.finish();

  const SlotPhases& s = t.phases(d0);
  REQUIRE(s.iterations.size() == 1);
  REQUIRE(s.windows.size() == 1);
  const Phase& it = s.iterations[0];
  CHECK(it.live_at_start == 100);
  CHECK(it.peak == 150);
  CHECK(it.floor == 100);
  CHECK(it.live_at_end == 130);
  CHECK(it.allocated == Tally{60, 2});
  CHECK(it.freed == Tally{30, 1});
  const Phase& w = s.windows[0];
  CHECK(w.live_at_start == 130);
  CHECK(w.floor == 110);
  CHECK(w.peak == 130);
  CHECK(w.live_at_end == 115);
  const SlotTimeline& slot = t.slot(d0);
  CHECK(slot.peak == 150);
  CHECK(slot.peak_ns == 2);
  CHECK(slot.live == 115);
}

TEST_CASE("Timeline gives a slot first seen late zero phases before it", "[timeline]") {
  Timeline t;
  uint16_t d0 = t.slotFor({0, MemoryKind::kDevice});
  t.beginIteration();
  t.onAlloc(d0, 8, 1);
  t.endIteration();
  t.beginIteration();
  uint16_t pinned = t.slotFor({0, MemoryKind::kPinned});
  CHECK(pinned != d0);
  t.onAlloc(pinned, 64, 2);
  t.endIteration();
  t.finish();
  const SlotPhases& p = t.phases(pinned);
  REQUIRE(p.iterations.size() == 2);
  REQUIRE(p.windows.size() == 2);
  CHECK(p.iterations[0].peak == 0);
  CHECK(p.windows[0].floor == 0);
  CHECK(p.iterations[1].floor == 0);
  CHECK(p.iterations[1].peak == 64);
  CHECK(p.windows[1].floor == 64);
}

TEST_CASE("Timeline maps (device, kind) to slots, large device ids too", "[timeline]") {
  Timeline t;
  uint16_t a = t.slotFor({1000000, MemoryKind::kManaged});
  CHECK(t.slotFor({1000000, MemoryKind::kManaged}) == a);
  CHECK(t.findSlot({1000000, MemoryKind::kManaged}) == a);
  CHECK(t.findSlot({1000000, MemoryKind::kDevice}) == kNoSlot);
  CHECK(t.findSlot({3, MemoryKind::kDevice}) == kNoSlot);
  CHECK(t.slotFor({3, MemoryKind::kDevice}) != a);
  CHECK(t.slotCount() == 2);
}

TEST_CASE("Timeline gives kinds it does not know one slot per device", "[timeline]") {
  // The file's kind byte as it is: a newer writer's kinds are all this build's kUnknown.
  Timeline t;
  const uint16_t first = t.slotFor(2, 9);
  CHECK(t.slot(first).key == MemoryKey{2, MemoryKind::kUnknown});
  CHECK(t.slotFor(2, 200) == first);
  CHECK(t.slotFor(2, static_cast<uint8_t>(MemoryKind::kUnknown)) == first);
  CHECK(t.findSlot(2, 150) == first);  // a kind never allocated, freed
  CHECK(t.findSlot(2, static_cast<uint8_t>(MemoryKind::kDevice)) == kNoSlot);
  CHECK(t.findSlot(3, 9) == kNoSlot);
  CHECK(t.slotCount() == 1);
}

TEST_CASE("Timeline refuses a trace with absurdly many devices", "[timeline]") {
  Timeline t;
  for (uint32_t d = 0; d < Timeline::kMaxSlots; ++d) t.slotFor({d + 100, MemoryKind::kDevice});
  CHECK_THROWS_AS(t.slotFor({1u << 30, MemoryKind::kDevice}), Error);
}

}  // namespace
}  // namespace memfloor::analysis
