// Where a pickle document's values live: the input, the values and their item arrays, in chunks
// that never move (values point at each other and into the input).
#pragma once

#include <algorithm>
#include <cstddef>
#include <deque>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "common/pickle.h"

namespace memfloor::common {

// Arrays of T allocated one after another in chunks; an array stays where it is until the
// arena goes. Not zeroed: whoever allocates an array writes it.
template <typename T>
class ChunkArena {
 public:
  T* allocate(size_t n) {
    if (n > capacity_ - used_) {
      // A large array gets a chunk of its own, so that the current chunk's rest is not lost.
      if (n >= kChunk / 4)
        return chunks_.emplace_back(std::make_unique_for_overwrite<T[]>(n)).get();
      chunks_.push_back(std::make_unique_for_overwrite<T[]>(kChunk));
      used_ = 0;
      capacity_ = kChunk;
      current_ = chunks_.back().get();
    }
    T* out = current_ + used_;
    used_ += n;
    return out;
  }

 private:
  static constexpr size_t kChunk = 4096;

  std::vector<std::unique_ptr<T[]>> chunks_;
  T* current_ = nullptr;
  size_t used_ = 0;
  size_t capacity_ = 0;
};

struct PickleStore {
  explicit PickleStore(std::string input) : bytes(std::move(input)) {}

  // The input: most str and bytes values point into it.
  std::string bytes;
  // Texts decoded from protocol 0's escapes (a deque: its strings never move).
  std::deque<std::string> texts;
  ChunkArena<PickleValue> values;
  ChunkArena<const PickleValue*> items;
  ChunkArena<PickleEntry> entries;
};

}  // namespace memfloor::common
