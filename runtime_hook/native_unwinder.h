// Native stacks of allocation calls: the calling thread's return addresses, found by following
// each frame's unwind rule (frame_rule.h) kept in a cache by return address, and by libgcc's
// unwinder for any stack with a frame whose rule the walk does not follow. A stack through
// libcudart and libcuda costs a cache lookup and two loads per frame once its rules are cached,
// where libgcc decodes every frame's unwind entry again on every call (about 2 us per call).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>

namespace memfloor::hook {

// Return addresses of the calling thread by _Unwind_Backtrace (libgcc, linked into the hook: no
// dlopen on first use, unlike glibc's backtrace(), which matters inside a driver callback),
// innermost first, at most max, after dropping the first `skip` (frames[0] is in this function).
size_t unwindWithLibgcc(uint64_t* frames, size_t max, size_t skip = 0);

class NativeUnwinder {
 public:
  NativeUnwinder();
  NativeUnwinder(const NativeUnwinder&) = delete;
  NativeUnwinder& operator=(const NativeUnwinder&) = delete;

  // The calling thread's return addresses, innermost first, at most max: frames[0] lies in
  // capture() itself, and from frames[1] on they are the frames unwindWithLibgcc finds from the
  // same caller. Thread-safe and lock-free; allocates nothing. A rule not yet cached is read from
  // the module (dl_iterate_phdr, as libgcc does for every frame).
  size_t capture(uint64_t* frames, size_t max);

  // Captures that libgcc made: a frame's rule was unsupported, or the walk saw a frame it could
  // not trust (a frame address that did not grow).
  uint64_t fallbacks() const { return fallbacks_.load(std::memory_order_relaxed); }

 private:
  // Direct-mapped by return address; each slot a seqlock whose writers take turns (a writer that
  // finds the slot being written leaves it), so a reader sees a whole entry or a miss.
  struct Slot {
    std::atomic<uint32_t> sequence{0};
    std::atomic<uint64_t> address{0};
    std::atomic<uint64_t> rule{0};  // packed FrameRule, see native_unwinder.cpp
  };
  static constexpr unsigned kSlotBits = 14;  // 16 Ki return addresses, 384 KiB

  uint64_t rule(uint64_t address);  // packed, cached
  bool lookup(uint64_t address, uint64_t& packed) const;
  void store(uint64_t address, uint64_t packed);

  std::unique_ptr<Slot[]> slots_;
  std::atomic<uint64_t> fallbacks_{0};
};

}  // namespace memfloor::hook
