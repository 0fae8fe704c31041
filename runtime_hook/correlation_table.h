// What the driver-API callback learned about a call (thread, stack, whether it is a VMM call),
// kept for the activity record with the same correlation id. Lock-free and fixed-size: the
// callback runs in the allocating thread, the record arrives later in CUPTI's buffer thread.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>

namespace memfloor::hook {

struct CallInfo {
  uint64_t thread = 0;  // OS thread id
  uint64_t key = 0;     // the requested size (kKeyIsSize) or the address (kKeyIsAddress)
  uint32_t stack = 0;   // trace::StackId, 0 if none
  uint8_t flags = 0;    // kCall*
};
inline constexpr uint8_t kCallVmm = 1;  // MEMORY2 records of this call are written from callbacks
inline constexpr uint8_t kCallAlloc = 2;
inline constexpr uint8_t kCallFree = 4;
inline constexpr uint8_t kKeyIsSize = 8;
inline constexpr uint8_t kKeyIsAddress = 16;

// Whether a MEMORY2 record really belongs to the call found under its correlation id. CUPTI gives
// a record of a call that had no callback of ours the id of an earlier call (measured on CUDA 13:
// with --stacks none, frees after a cuMemRelease carried its id), so the id alone is not proof:
// the direction and the size or address must agree too.
inline bool belongsTo(const CallInfo& call, bool is_alloc, uint64_t address, uint64_t size) {
  if ((call.flags & (is_alloc ? kCallAlloc : kCallFree)) == 0 || call.key == 0) return false;
  if ((call.flags & kKeyIsSize) != 0) return call.key == size;
  if ((call.flags & kKeyIsAddress) != 0) return call.key == address;
  return false;
}

// Direct-mapped by correlation id: an entry lives until 2^bits later calls overwrite it, which is
// far more than CUPTI keeps in flight with buffers of a few MiB (about 60 k records per 8 MiB).
class CorrelationTable {
 public:
  static constexpr unsigned kDefaultBits = 18;  // 256 Ki slots
  explicit CorrelationTable(unsigned bits = kDefaultBits)
      : mask_((1u << bits) - 1), slots_(std::make_unique<Slot[]>(size_t{1} << bits)) {}

  void put(uint32_t correlation, const CallInfo& info) {
    Slot& slot = slots_[correlation & mask_];
    // A seqlock with the key as its sequence: readers see either the whole entry or a miss.
    slot.key.store(0, std::memory_order_relaxed);
    std::atomic_thread_fence(std::memory_order_release);
    slot.thread.store(info.thread, std::memory_order_relaxed);
    slot.stack_flags.store(uint64_t{info.stack} << 8 | info.flags, std::memory_order_relaxed);
    slot.key_value.store(info.key, std::memory_order_relaxed);
    slot.key.store(correlation, std::memory_order_release);
  }

  bool get(uint32_t correlation, CallInfo& out) const {
    if (correlation == 0) return false;
    const Slot& slot = slots_[correlation & mask_];
    if (slot.key.load(std::memory_order_acquire) != correlation) return false;
    uint64_t thread = slot.thread.load(std::memory_order_relaxed);
    uint64_t stack_flags = slot.stack_flags.load(std::memory_order_relaxed);
    uint64_t key = slot.key_value.load(std::memory_order_relaxed);
    std::atomic_thread_fence(std::memory_order_acquire);
    if (slot.key.load(std::memory_order_relaxed) != correlation) return false;
    out.thread = thread;
    out.key = key;
    out.stack = static_cast<uint32_t>(stack_flags >> 8);
    out.flags = static_cast<uint8_t>(stack_flags & 0xff);
    return true;
  }

 private:
  struct Slot {
    std::atomic<uint32_t> key{0};
    std::atomic<uint64_t> thread{0};
    std::atomic<uint64_t> stack_flags{0};
    std::atomic<uint64_t> key_value{0};
  };
  uint32_t mask_;
  std::unique_ptr<Slot[]> slots_;
};

}  // namespace memfloor::hook
