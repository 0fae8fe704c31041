// Timeline: phase boundaries and slot creation (the per-event updates are inline in the header).
#include "analysis/timeline.h"

#include <cassert>
#include <string>

#include "common/error.h"

namespace memfloor::analysis {

Timeline::Timeline() { direct_.fill(kNoSlot); }

uint16_t Timeline::addSlot(MemoryKey key) {
  if (slots_.size() >= kMaxSlots) {
    throw Error("the trace uses more than " + std::to_string(kMaxSlots) +
                " (device, memory kind) pairs; device ids look corrupt");
  }
  slots_.emplace_back().key = key;
  // Nothing was live in this slot before: every earlier phase is all zeros.
  SlotPhases& phases = phases_.emplace_back();
  phases.iterations.resize(iterations_);
  phases.windows.resize(windows_);
  return static_cast<uint16_t>(slots_.size() - 1);
}

uint16_t Timeline::slowFindSlot(MemoryKey key) const {
  for (size_t i = 0; i < slots_.size(); ++i) {
    if (slots_[i].key == key) return static_cast<uint16_t>(i);
  }
  return kNoSlot;
}

uint16_t Timeline::slowSlotFor(MemoryKey key) {
  for (size_t i = 0; i < slots_.size(); ++i) {
    if (slots_[i].key == key) return static_cast<uint16_t>(i);
  }
  return addSlot(key);
}

// Ends the open phase of every slot (appending it to `into` unless it is the prelude) and opens
// the next one at the current live bytes.
void Timeline::closePhase(std::vector<Phase> SlotPhases::*into) {
  for (size_t i = 0; i < slots_.size(); ++i) {
    SlotTimeline& s = slots_[i];
    s.current.live_at_end = s.live;
    s.allocated += s.current.allocated;
    s.freed += s.current.freed;
    if (into != nullptr) (phases_[i].*into).push_back(s.current);
    s.current = Phase{s.live, s.live, s.live, s.live, {}, {}};
  }
}

uint64_t Timeline::liveTotal() const {
  uint64_t total = 0;
  for (const SlotTimeline& s : slots_) total += s.live;
  return total;
}

void Timeline::beginIteration() {
  assert((state_ == State::kPrelude || state_ == State::kWindow) && "iteration inside iteration");
  closePhase(state_ == State::kWindow ? &SlotPhases::windows : nullptr);
  if (state_ == State::kWindow) ++windows_;
  state_ = State::kIteration;
}

void Timeline::endIteration() {
  assert(state_ == State::kIteration && "end of an iteration that was not begun");
  closePhase(&SlotPhases::iterations);
  ++iterations_;
  state_ = State::kWindow;
}

void Timeline::finish() {
  assert(state_ != State::kIteration && "finish with an open iteration: end it first");
  if (state_ == State::kWindow) {
    closePhase(&SlotPhases::windows);
    ++windows_;
  } else {
    closePhase(nullptr);
  }
  state_ = State::kFinished;
}

std::vector<bool> reservedSlots(const Timeline& timeline) {
  const size_t slots = timeline.slotCount();
  std::vector<bool> out(slots, false);
  for (size_t s = 0; s < slots; ++s) {
    const MemoryKey& key = timeline.slot(static_cast<uint16_t>(s)).key;
    if (key.kind != trace::MemoryKind::kDevice) continue;
    out[s] = timeline.findSlot({key.device, trace::MemoryKind::kBlock}) != kNoSlot;
  }
  return out;
}

}  // namespace memfloor::analysis
