// Timeline: live bytes per (device, memory kind) slot, cut into iterations and idle windows.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "analysis/live_set.h"
#include "analysis/report.h"

namespace memfloor::analysis {

// Peak, floor and traffic of one slot over one phase (an iteration or an idle window). The floor
// and peak are running min/max of live bytes, updated in O(1) per event: the floor of a window
// never needs the events again.
struct Phase {
  uint64_t live_at_start = 0;
  uint64_t live_at_end = 0;
  uint64_t peak = 0;
  uint64_t floor = 0;
  Tally allocated;
  Tally freed;
};

// One slot's state, updated per event: 128 bytes, so that the replay finds a slot with a shift.
struct SlotTimeline {
  MemoryKey key;
  uint64_t live = 0;
  uint64_t peak = 0;
  uint64_t peak_ns = 0;
  Tally allocated;  // over the closed phases: complete once finish() has run
  Tally freed;
  Phase current;  // the open phase (the prelude before the first iteration too)
};
static_assert(sizeof(SlotTimeline) == 128);

// One slot's closed phases.
struct SlotPhases {
  std::vector<Phase> iterations;  // closed iterations, by index
  std::vector<Phase> windows;     // closed idle windows: windows[i] follows iterations[i]
};

// The phases are the same for every slot: the prelude, then iteration 0, window 0, iteration 1...
// A slot first seen late gets zero phases for what came before it (it held nothing then).
class Timeline {
 public:
  static constexpr size_t kMaxSlots = 512;  // a trace naming more (device, kind) pairs is refused

  Timeline();

  // The slot for a device and memory kind, created on first use. Throws memfloor::Error past
  // kMaxSlots (a corrupt or hostile trace: device ids are untrusted).
  uint16_t slotFor(MemoryKey key) { return slotFor(key.device, static_cast<uint8_t>(key.kind)); }

  // The slot if it exists, else kNoSlot (a free must not create one).
  uint16_t findSlot(MemoryKey key) const {
    return findSlot(key.device, static_cast<uint8_t>(key.kind));
  }
  // The same for an event's fields, its kind as the file has it (one this build does not know is
  // kUnknown): the replay's per-event lookups, with no MemoryKey built on the way. The direct
  // table is indexed by the file's kind byte as it is, so that the lookup needs no test of it:
  // kinds this build does not know share their slot through the slow path.
  [[gnu::always_inline]] uint16_t slotFor(uint32_t device, uint8_t kind) {
    if (device < kDirectDevices) [[likely]] {
      uint16_t& s = direct_[directIndex(device, kind)];
      if (s == kNoSlot) [[unlikely]]
        s = slowSlotFor(keyOf(device, kind));
      return s;
    }
    return slowSlotFor(keyOf(device, kind));
  }
  [[gnu::always_inline]] uint16_t findSlot(uint32_t device, uint8_t kind) const {
    if (device < kDirectDevices) [[likely]] {
      const uint16_t s = direct_[directIndex(device, kind)];
      if (s != kNoSlot) [[likely]]
        return s;
    }
    return slowFindSlot(keyOf(device, kind));
  }
  static MemoryKey keyOf(uint32_t device, uint8_t kind) {
    return {device, static_cast<trace::MemoryKind>(knownKind(kind))};
  }

  // True where the allocation made a new peak of the open phase (the first time its most is
  // reached: equal bytes later are no new peak).
  [[gnu::always_inline]] bool onAlloc(uint16_t slot, uint64_t size, uint64_t timestamp) {
    SlotTimeline& s = slots_[slot];
    s.live += size;
    s.current.allocated.add(size);
    if (s.live <= s.current.peak) return false;
    s.current.peak = s.live;
    // The run's peak is never below the phase's: only a new phase peak can be a new run peak.
    if (s.live > s.peak) {
      s.peak = s.live;
      s.peak_ns = timestamp;
    }
    return true;
  }

  [[gnu::always_inline]] void onFree(uint16_t slot, uint64_t size) {
    SlotTimeline& s = slots_[slot];
    s.live -= size;  // size is the live allocation's own size: never more than live
    s.current.freed.add(size);
    if (s.live < s.current.floor) s.current.floor = s.live;
  }

  void beginIteration();  // closes the prelude or the open window
  void endIteration();    // closes the iteration, opens its idle window
  void finish();          // closes the open window (or prelude); an open iteration is an error

  size_t slotCount() const { return slots_.size(); }
  uint64_t liveTotal() const;  // over all slots
  const SlotTimeline& slot(uint16_t s) const { return slots_[s]; }
  const SlotPhases& phases(uint16_t s) const { return phases_[s]; }
  bool inIteration() const { return state_ == State::kIteration; }

 private:
  static constexpr uint32_t kDirectDevices = 64;
  static uint32_t directIndex(uint32_t device, uint8_t kind) { return device << 8 | kind; }
  static uint32_t knownKind(uint8_t kind) {
    return kind < trace::kMemoryKindCount ? kind
                                          : static_cast<uint32_t>(trace::MemoryKind::kUnknown);
  }
  enum class State : uint8_t { kPrelude, kIteration, kWindow, kFinished };

  uint16_t addSlot(MemoryKey key);
  uint16_t slowSlotFor(MemoryKey key);
  uint16_t slowFindSlot(MemoryKey key) const;
  void closePhase(std::vector<Phase> SlotPhases::*into);

  std::vector<SlotTimeline> slots_;
  std::vector<SlotPhases> phases_;                       // by slot
  std::array<uint16_t, kDirectDevices * 256> direct_{};  // by directIndex: 32 KiB
  State state_ = State::kPrelude;
  size_t iterations_ = 0;  // closed iterations
  size_t windows_ = 0;     // closed windows
};

// Per slot (indexed by slot): whether it is a caching allocator's reserved level, device memory
// on a device with blocks (report/levels.h, isReservedLevel).
std::vector<bool> reservedSlots(const Timeline& timeline);

}  // namespace memfloor::analysis
