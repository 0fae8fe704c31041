// The pickle machine's memo: values stored under indices the input chooses (up to 2^32 from
// LONG_BINPUT, any int from protocol 0's PUT), in memory in proportion to the entries stored.
#pragma once

#include <cstddef>
#include <cstdint>
#include <unordered_map>
#include <vector>

namespace memfloor::common {

class PickleValue;

class PickleMemo {
 public:
  // Stores `value` under `index`, replacing what was there.
  void put(uint64_t index, PickleValue* value) {
    if (index < dense_.size()) {
      dense_[index] = value;
    } else if (index == dense_.size()) {
      dense_.push_back(value);
      if (!sparse_.empty()) sparse_.erase(index);
    } else {
      sparse_[index] = value;
    }
  }

  // What `index` holds; nullptr when nothing was stored there.
  PickleValue* get(uint64_t index) const {
    if (index < dense_.size()) return dense_[index];
    auto it = sparse_.find(index);
    return it == sparse_.end() ? nullptr : it->second;
  }

  // The entries stored: len(memo), where Python's MEMOIZE stores the next one.
  size_t size() const { return dense_.size() + sparse_.size(); }

 private:
  // Python numbers entries 0, 1, 2... in order: those go to a vector, grown one at a time, never
  // to an index from the input. Any other index is hashed (and moves to nothing: an index
  // reached by the vector is taken out of the map).
  std::vector<PickleValue*> dense_;
  std::unordered_map<uint64_t, PickleValue*> sparse_;
};

}  // namespace memfloor::common
