// Builds a pickle document's values in its store: scalars, and containers that stay open while
// the pickle machine adds to them and close once placed in another container.
//
// Closing copies a container's items into the store and fixes its depth; adding to a closed
// container is refused. Python's pickler fills each container before it places it, so only a
// container inside itself (recursive data) or one changed after use trips that, and they are
// caught in one step, without a walk.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "common/pickle.h"

namespace memfloor::common {

class PickleBuilder {
 public:
  explicit PickleBuilder(PickleStore& store);
  PickleBuilder(const PickleBuilder&) = delete;
  PickleBuilder& operator=(const PickleBuilder&) = delete;

  // Values that never change are shared: None, True, False, () and the ints 0 to 255.
  PickleValue* none() const { return none_; }
  PickleValue* boolean(bool value) const { return value ? true_ : false_; }
  PickleValue* emptyTuple() const { return empty_tuple_; }
  PickleValue* integer(int64_t value);
  PickleValue* number(double value);
  // A kStr or kBytes of `text`, which must live as long as the store (the input, or the store's
  // texts).
  PickleValue* text(PickleKind kind, std::string_view text);

  // An empty list, dict or set, open.
  PickleValue* open(PickleKind kind);
  // A tuple or frozenset (kSet) of `items`, closing them; nullptr when it would nest deeper than
  // kMaxPickleDepth.
  PickleValue* closed(PickleKind kind, std::span<PickleValue* const> items);

  enum class Added { kYes, kTooDeep, kTargetClosed };
  // Adds `items` to `target` (a dict's keys and values in turn, an even number), closing them.
  Added add(PickleValue& target, std::span<PickleValue* const> items);
  // Closes `value` when it is an open container (the document's root, at STOP).
  void close(PickleValue& value);

 private:
  PickleValue* make(PickleKind kind);
  // Closes `items`; the depth of a container holding them, or nullopt past kMaxPickleDepth.
  std::optional<uint16_t> place(std::span<PickleValue* const> items);
  std::vector<const PickleValue*>& itemsOf(PickleValue& container);

  PickleStore& store_;
  // The items of open containers; [0] stands for none yet. Reused once a container closes.
  std::vector<std::vector<const PickleValue*>> open_items_;
  std::vector<size_t> free_items_;
  PickleValue* none_;
  PickleValue* true_;
  PickleValue* false_;
  PickleValue* empty_tuple_;
  std::array<PickleValue*, 256> byte_ints_{};
};

}  // namespace memfloor::common
