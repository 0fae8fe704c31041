// A pickle document's values, built in its store: open containers gathered, closed ones copied.
#include "common/pickle_builder.h"

#include <algorithm>

#include "common/pickle_store.h"

namespace memfloor::common {

PickleBuilder::PickleBuilder(PickleStore& store)
    : store_(store),
      open_items_(1),
      none_(make(PickleKind::kNone)),
      true_(make(PickleKind::kBool)),
      false_(make(PickleKind::kBool)),
      empty_tuple_(make(PickleKind::kTuple)) {
  true_->u_.boolean = true;
  false_->u_.boolean = false;
  empty_tuple_->depth_ = 1;
  empty_tuple_->u_.items = nullptr;
}

PickleValue* PickleBuilder::integer(int64_t value) {
  const bool byte = value >= 0 && value < static_cast<int64_t>(byte_ints_.size());
  if (byte && byte_ints_[value] != nullptr) return byte_ints_[value];
  PickleValue* out = make(PickleKind::kInt);
  out->u_.integer = value;
  if (byte) byte_ints_[value] = out;
  return out;
}

PickleValue* PickleBuilder::number(double value) {
  PickleValue* out = make(PickleKind::kFloat);
  out->u_.number = value;
  return out;
}

PickleValue* PickleBuilder::text(PickleKind kind, std::string_view text) {
  PickleValue* out = make(kind);
  out->u_.text = text.data();
  out->size_ = text.size();
  return out;
}

PickleValue* PickleBuilder::open(PickleKind kind) {
  PickleValue* value = make(kind);
  value->open_ = true;
  value->depth_ = 1;
  value->u_.builder = 0;
  return value;
}

PickleValue* PickleBuilder::closed(PickleKind kind, std::span<PickleValue* const> items) {
  const std::optional<uint16_t> depth = place(items);
  if (!depth) return nullptr;
  PickleValue* value = make(kind);
  value->depth_ = *depth;
  const PickleValue** out = store_.items.allocate(items.size());
  std::copy(items.begin(), items.end(), out);
  value->u_.items = out;
  value->size_ = items.size();
  return value;
}

PickleBuilder::Added PickleBuilder::add(PickleValue& target, std::span<PickleValue* const> items) {
  const std::optional<uint16_t> depth = place(items);
  if (!depth) return Added::kTooDeep;
  // Checked after `items` closed: `target` may be one of them.
  if (!target.open_) return Added::kTargetClosed;
  std::vector<const PickleValue*>& all = itemsOf(target);
  all.insert(all.end(), items.begin(), items.end());
  target.depth_ = std::max(target.depth_, *depth);
  return Added::kYes;
}

void PickleBuilder::close(PickleValue& value) {
  if (!value.open_) return;
  value.open_ = false;
  const size_t index = value.u_.builder;
  std::vector<const PickleValue*>& items = open_items_[index];
  if (value.kind_ == PickleKind::kDict) {
    const size_t n = items.size() / 2;
    PickleEntry* entries = store_.entries.allocate(n);
    for (size_t i = 0; i < n; ++i) entries[i] = {items[2 * i], items[2 * i + 1]};
    value.u_.entries = entries;
    value.size_ = n;
  } else {
    const PickleValue** out = store_.items.allocate(items.size());
    std::copy(items.begin(), items.end(), out);
    value.u_.items = out;
    value.size_ = items.size();
  }
  if (index != 0) {
    items.clear();
    free_items_.push_back(index);
  }
}

PickleValue* PickleBuilder::make(PickleKind kind) {
  PickleValue* value = store_.values.allocate(1);
  value->kind_ = kind;
  return value;
}

std::optional<uint16_t> PickleBuilder::place(std::span<PickleValue* const> items) {
  int depth = 1;
  for (PickleValue* item : items) {
    if (item->open_) close(*item);
    depth = std::max(depth, item->depth_ + 1);
  }
  if (depth > kMaxPickleDepth) return std::nullopt;
  return static_cast<uint16_t>(depth);
}

std::vector<const PickleValue*>& PickleBuilder::itemsOf(PickleValue& container) {
  if (container.u_.builder == 0) {
    if (free_items_.empty()) {
      container.u_.builder = open_items_.size();
      open_items_.emplace_back();
    } else {
      container.u_.builder = free_items_.back();
      free_items_.pop_back();
    }
  }
  return open_items_[container.u_.builder];
}

}  // namespace memfloor::common
