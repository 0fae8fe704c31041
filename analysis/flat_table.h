// FlatTable: the open-addressing hash table behind the replay's per-event lookups.
#pragma once

#include <bit>
#include <cassert>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace memfloor::analysis {

// Multiplicative (Fibonacci) hashing: the high bits of key * 2^64/phi are well mixed even when the
// low bits of the key are all zero, as they are for device addresses (256-byte or larger aligned).
inline constexpr uint64_t kFibonacciMultiplier = 0x9E3779B97F4A7C15ull;  // 2^64 / phi, odd
inline uint64_t mixHash(uint64_t key) { return key * kFibonacciMultiplier; }

// Linear probing with backward-shift erase: no tombstones, so a table that sees billions of
// alloc/free pairs over a steady live set never degrades. One flat array, grown by doubling at
// half load; nothing is allocated per operation otherwise.
//
// Entry provides: `using Key`; `Key key() const`; `void setKey(const Key&)`; `bool empty() const`
// (a value-initialized Entry is empty); `static uint64_t hash(const Key&)` (mixed in its high
// bits). It may provide `void markEmpty()`: an erased entry is then only marked, and one that
// findOrInsert() inserts holds what its slot held before but for its key (the caller writes every
// other field).
template <typename Entry>
class FlatTable {
 public:
  using Key = typename Entry::Key;

  explicit FlatTable(size_t initial_capacity = 1024) { reset(initial_capacity); }

  [[gnu::always_inline]] Entry* find(const Key& key) {
    for (size_t i = home(key);; i = (i + 1) & mask_) {
      Entry& e = entries_[i];
      if (e.empty()) return nullptr;
      if (e.key() == key) return &e;
    }
  }

  // The entry for key; a new one (inserted = true) when key was absent, value-initialized but for
  // its key unless Entry has markEmpty(). The reference stays valid until the next insertion or
  // erase.
  [[gnu::always_inline]] Entry& findOrInsert(const Key& key, bool& inserted) {
    if (size_ >= grow_at_) [[unlikely]]  // one more would pass half the capacity
      grow();
    size_t i = home(key);
    for (;; i = (i + 1) & mask_) {
      Entry& e = entries_[i];
      if (e.empty()) break;
      if (e.key() == key) {
        inserted = false;
        return e;
      }
    }
    inserted = true;
    ++size_;
    entries_[i].setKey(key);
    return entries_[i];
  }

  // Removes an entry obtained from find/findOrInsert, shifting back the run after it so that
  // every remaining key stays reachable from its home slot.
  [[gnu::always_inline]] void erase(Entry& entry) {
    size_t hole = static_cast<size_t>(&entry - entries_.data());
    assert(hole < entries_.size() && !entry.empty() && "erase of an entry not in the table");
    for (size_t j = (hole + 1) & mask_;; j = (j + 1) & mask_) {
      Entry& e = entries_[j];
      if (e.empty()) break;
      // e may move into the hole unless its home lies cyclically in (hole, j].
      size_t h = home(e.key());
      bool stays = hole <= j ? (hole < h && h <= j) : (hole < h || h <= j);
      if (!stays) {
        entries_[hole] = e;
        hole = j;
      }
    }
    if constexpr (requires(Entry & e) { e.markEmpty(); }) {
      entries_[hole].markEmpty();
    } else {
      entries_[hole] = Entry{};
    }
    --size_;
  }

  // Starts loading the cache line where a lookup of key begins: a replay that knows its next
  // keys hides the miss behind the events before them.
  void prefetch(const Key& key) const { __builtin_prefetch(&entries_[home(key)]); }

  size_t size() const { return size_; }
  size_t capacity() const { return entries_.size(); }

  template <typename F>
  void forEach(F&& f) const {
    for (const Entry& e : entries_) {
      if (!e.empty()) f(e);
    }
  }

 private:
  void reset(size_t capacity) {
    capacity = std::bit_ceil(capacity < 16 ? size_t{16} : capacity);
    entries_.assign(capacity, Entry{});
    mask_ = capacity - 1;
    grow_at_ = capacity / 2;
    shift_ = 64 - std::countr_zero(capacity);
    size_ = 0;
  }

  [[gnu::noinline]] void grow() {
    std::vector<Entry> old;
    old.swap(entries_);
    reset(old.size() * 2);
    for (const Entry& e : old) {
      if (e.empty()) continue;
      size_t i = home(e.key());
      while (!entries_[i].empty()) i = (i + 1) & mask_;
      entries_[i] = e;
      ++size_;
    }
  }

  size_t home(const Key& key) const { return static_cast<size_t>(Entry::hash(key) >> shift_); }

  std::vector<Entry> entries_;
  size_t mask_ = 0;
  size_t grow_at_ = 0;  // capacity / 2: the size at which an insertion grows the table first
  int shift_ = 64;
  size_t size_ = 0;
};

}  // namespace memfloor::analysis
