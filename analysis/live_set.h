// LiveSet: the allocations live right now, keyed by (timeline slot, address); pairs frees with
// them.
#pragma once

#include <cstdint>

#include "analysis/flat_table.h"
#include "analysis/report.h"

namespace memfloor::analysis {

inline constexpr uint16_t kNoSlot = 0xFFFF;  // marks an empty LiveAlloc; real slots are smaller

inline constexpr uint8_t kBornPersistent = 1;  // allocated before the first counted iteration
inline constexpr uint8_t kBornInWindow = 2;    // allocated in an idle window
inline constexpr uint8_t kHeldByCensus = 4;    // a census found a storage in it (holders.h)
inline constexpr uint8_t kSegment = 8;         // a segment that blocks lie in (segment_map.h)

// One live allocation: 32 bytes, so two share a cache line.
struct LiveAlloc {
  uint64_t address = 0;
  uint64_t size = 0;
  uint32_t site = 0;          // Retention's site index (stack + slot)
  uint32_t first_window = 0;  // the first idle window it can be retained in (docs/design.md)
  uint16_t slot = kNoSlot;    // Timeline's (device, memory kind) slot
  uint8_t flags = 0;          // kBorn*, kHeldByCensus, kSegment

  struct Key {
    uint64_t address;
    uint16_t slot;
    bool operator==(const Key&) const = default;
  };
  Key key() const { return {address, slot}; }
  void setKey(const Key& k) {
    address = k.address;
    slot = k.slot;
  }
  bool empty() const { return slot == kNoSlot; }
  // Erased: only the slot says so. Whoever takes the entry next writes every field (LiveSet).
  void markEmpty() { slot = kNoSlot; }
  // The address alone: under CUDA's unified address space two slots rarely share an address, and
  // a probe that needs no slot can start before the slot is looked up (5-8% of `memfloor analyze`).
  // Keys that do share an address only share a probe run.
  static uint64_t hash(const Key& k) { return mixHash(k.address); }
};

// What pairing found wrong, counted instead of thrown.
struct PairingStats {
  Tally unmatched_frees;
  Tally double_allocations;
  uint64_t size_mismatches = 0;
};

// Pairs frees with allocations at the same (slot, address). A free with no live allocation is an
// unmatched free. An allocation at an address that is already live is a double allocation: the
// older one is closed (handed back through `replaced`) and the newer one takes the address, because
// the driver never hands out a live address twice, so the older one's free was lost (dropped
// records). Closing it keeps live bytes from growing without bound when frees go missing.
class LiveSet {
 public:
  // Opens an allocation at (slot, address) and returns its entry, the key set, for the caller to
  // write every other field into (a new entry holds what its table slot last held). When the
  // address was already live, calls on_replaced with the allocation it closes, first. The replay
  // writes the fields where they lie: a LiveAlloc built aside and copied in is read back in wider
  // loads than it was written, and the copy waits until those writes reach the cache (a
  // store-forwarding stall, a tenth of the replay's time).
  template <typename OnReplaced>
  [[gnu::always_inline]] LiveAlloc& openAt(uint16_t slot, uint64_t address,
                                           OnReplaced&& on_replaced) {
    bool inserted = false;
    LiveAlloc& entry = table_.findOrInsert({address, slot}, inserted);
    if (!inserted) [[unlikely]] {
      stats_.double_allocations.add(entry.size);
      on_replaced(static_cast<const LiveAlloc&>(entry));
    }
    return entry;
  }
  // Opens `alloc` (key, size and attribution filled in by the caller). When the address was
  // already live, calls on_replaced with the allocation it closes, first, and returns true.
  template <typename OnReplaced>
  bool open(const LiveAlloc& alloc, OnReplaced&& on_replaced) {
    const size_t live = table_.size();
    openAt(alloc.slot, alloc.address, on_replaced) = alloc;
    return table_.size() == live;
  }
  bool open(const LiveAlloc& alloc, LiveAlloc& replaced) {
    return open(alloc, [&replaced](const LiveAlloc& old) { replaced = old; });
  }

  // Closes the allocation at (slot, address), calling on_closed with it before it leaves; false
  // (an unmatched free, counted with free_size) when none is live. The allocation's own size is
  // what counts; a free_size of 0 means "not recorded" and is no mismatch.
  template <typename OnClosed>
  [[gnu::always_inline]] bool close(uint16_t slot, uint64_t address, uint64_t free_size,
                                    OnClosed&& on_closed) {
    LiveAlloc* entry = table_.find({address, slot});
    if (entry == nullptr) [[unlikely]] {
      stats_.unmatched_frees.add(free_size);
      return false;
    }
    if (free_size != 0 && entry->size != free_size) ++stats_.size_mismatches;
    on_closed(static_cast<const LiveAlloc&>(*entry));
    table_.erase(*entry);
    return true;
  }
  bool close(uint16_t slot, uint64_t address, uint64_t free_size, LiveAlloc& closed) {
    return close(slot, address, free_size, [&closed](const LiveAlloc& a) { closed = a; });
  }

  // A free on a (device, kind) that never had an allocation.
  void unmatchedFree(uint64_t free_size) { stats_.unmatched_frees.add(free_size); }

  const LiveAlloc* find(uint16_t slot, uint64_t address) { return table_.find({address, slot}); }
  // A hint that an allocation or free at address comes soon (the hash needs no slot).
  void prefetch(uint64_t address) const { table_.prefetch({address, 0}); }
  // Sets `flag` on the live allocation at (slot, address); false when none is live there.
  bool addFlag(uint16_t slot, uint64_t address, uint8_t flag) {
    LiveAlloc* entry = table_.find({address, slot});
    if (entry == nullptr) return false;
    entry->flags = static_cast<uint8_t>(entry->flags | flag);
    return true;
  }
  size_t size() const { return table_.size(); }
  size_t capacity() const { return table_.capacity(); }
  const PairingStats& stats() const { return stats_; }

  template <typename F>
  void forEach(F&& f) const {
    table_.forEach(f);
  }

 private:
  FlatTable<LiveAlloc> table_;
  PairingStats stats_;
};

}  // namespace memfloor::analysis
