// The streaming pickle writer, protocol 4 with the opcodes PyTorch's memory viewer reads.
#include "common/pickle_writer.h"

#include <bit>
#include <cassert>

#include "common/error.h"
#include "common/pickle.h"
#include "common/pickle_opcodes.h"
#include "common/utf8.h"

namespace memfloor::common {

namespace {

constexpr int kProtocol = 4;
constexpr uint32_t kBatch = 1000;                // items per APPENDS, pairs per SETITEMS (Python's)
constexpr size_t kFlushBytes = size_t{1} << 16;  // the buffer is written out past this

constexpr uint8_t code(PickleOp op) { return static_cast<uint8_t>(op); }

}  // namespace

PickleWriter::PickleWriter(std::ostream& out) : out_(out) {
  op(code(PickleOp::kProto));
  op(kProtocol);
}

void PickleWriter::none() {
  beforeValue();
  op(code(PickleOp::kNone));
  afterValue();
}

void PickleWriter::boolean(bool value) {
  beforeValue();
  op(code(value ? PickleOp::kNewTrue : PickleOp::kNewFalse));
  afterValue();
}

void PickleWriter::integer(int64_t value) {
  beforeValue();
  constexpr int64_t kByte = UINT8_MAX, kShort = UINT16_MAX;
  if (value >= 0 && value <= kByte) {
    op(code(PickleOp::kBinInt1));
    littleEndian(static_cast<uint64_t>(value), 1);
  } else if (value >= 0 && value <= kShort) {
    op(code(PickleOp::kBinInt2));
    littleEndian(static_cast<uint64_t>(value), 2);
  } else if (value >= INT32_MIN && value <= INT32_MAX) {
    op(code(PickleOp::kBinInt));
    littleEndian(static_cast<uint32_t>(value), 4);
  } else {
    // LONG1: the shortest two's complement, dropping high bytes that only repeat the sign.
    const auto bits = static_cast<uint64_t>(value);
    int bytes = sizeof(uint64_t);
    while (bytes > 1) {
      const auto high = static_cast<uint8_t>(bits >> (8 * (bytes - 1)));
      const bool next_negative = ((bits >> (8 * (bytes - 1) - 1)) & 1) != 0;
      if (!(high == 0 && !next_negative) && !(high == UINT8_MAX && next_negative)) break;
      --bytes;
    }
    op(code(PickleOp::kLong1));
    op(static_cast<uint8_t>(bytes));
    littleEndian(bits, bytes);
  }
  afterValue();
}

void PickleWriter::number(double value) {
  beforeValue();
  op(code(PickleOp::kBinFloat));
  const auto bits = std::bit_cast<uint64_t>(value);
  // Big-endian.
  for (int i = sizeof(bits) - 1; i >= 0; --i) op(static_cast<uint8_t>(bits >> (8 * i)));
  afterValue();
}

void PickleWriter::str(std::string_view text) {
  beforeValue();
  if (auto it = strs_.find(text); it != strs_.end()) {
    get(it->second);
  } else {
    const bool valid = utf8Prefix(text) == text.size();
    const std::string replaced = valid ? std::string() : replaceInvalidUtf8(text);
    const std::string_view written = valid ? text : replaced;
    assert(written.size() <= UINT32_MAX && "BINUNICODE holds a str of less than 4 GiB");
    if (written.size() <= UINT8_MAX) {
      op(code(PickleOp::kShortBinUnicode));
      littleEndian(written.size(), 1);
    } else {
      op(code(PickleOp::kBinUnicode));
      littleEndian(written.size(), 4);
    }
    buffer_ += written;
    if (const PickleRef ref = memoize(); ref.valid()) strs_.emplace(text, ref.memo);
  }
  afterValue();
}

void PickleWriter::beginList(PickleKeep keep) { begin(Container::kList, keep); }
void PickleWriter::beginDict(PickleKeep keep) { begin(Container::kDict, keep); }
void PickleWriter::beginTuple(PickleKeep keep) { begin(Container::kTuple, keep); }

void PickleWriter::begin(Container kind, PickleKeep keep) {
  beforeValue();
  Open open{kind, {}, keep == PickleKeep::kYes};
  switch (kind) {
    case Container::kList:
      op(code(PickleOp::kEmptyList));
      break;
    case Container::kDict:
      op(code(PickleOp::kEmptyDict));
      break;
    case Container::kTuple:
      op(code(PickleOp::kMark));
      break;
  }
  // As Python's pickler: a list or dict is memoized before its items, a tuple once built.
  if (open.keep && kind != Container::kTuple) open.ref = memoize();
  open_.push_back(open);
}

PickleRef PickleWriter::end() {
  assert(!open_.empty() && "end() of a container begun");
  Open open = open_.back();
  open_.pop_back();
  switch (open.kind) {
    case Container::kList:
      if (open.batched > 0) op(code(PickleOp::kAppends));
      break;
    case Container::kDict:
      assert(open.batched % 2 == 0 && "a dict's last key has its value");
      if (open.batched > 0) op(code(PickleOp::kSetItems));
      break;
    case Container::kTuple:
      op(code(PickleOp::kTuple));
      if (open.keep) open.ref = memoize();
      break;
  }
  afterValue();
  return open.ref;
}

void PickleWriter::ref(PickleRef kept) {
  assert(kept.valid() && "ref() of a container begun with PickleKeep::kYes");
  for ([[maybe_unused]] const Open& open : open_) {
    assert(open.ref.memo != kept.memo && "a container inside itself is not written");
  }
  beforeValue();
  get(kept.memo);
  afterValue();
}

void PickleWriter::finish() {
  assert(open_.empty() && root_written_ && !finished_ && "finish() after one whole value");
  op(code(PickleOp::kStop));
  out_.write(buffer_.data(), static_cast<std::streamsize>(buffer_.size()));
  buffer_.clear();
  out_.flush();
  finished_ = true;
}

void PickleWriter::beforeValue() {
  if (open_.empty()) {
    assert(!root_written_ && "a pickle holds one root value");
    root_written_ = true;
    return;
  }
  Open& open = open_.back();
  if (open.kind != Container::kTuple && open.batched == 0) op(code(PickleOp::kMark));
}

void PickleWriter::afterValue() {
  flushIfFull();
  if (open_.empty()) return;
  Open& open = open_.back();
  ++open.batched;
  if (open.kind == Container::kList && open.batched == kBatch) {
    op(code(PickleOp::kAppends));
    open.batched = 0;
  } else if (open.kind == Container::kDict && open.batched == 2 * kBatch) {
    op(code(PickleOp::kSetItems));
    open.batched = 0;
  }
}

PickleRef PickleWriter::memoize() {
  // LONG_BINGET reaches the first 2^32 - 1 entries; past them nothing more is memoized.
  if (memo_count_ == PickleRef::kNone) return {};
  op(code(PickleOp::kMemoize));
  return {memo_count_++};
}

void PickleWriter::get(uint32_t memo) {
  if (memo <= UINT8_MAX) {
    op(code(PickleOp::kBinGet));
    littleEndian(memo, 1);
  } else {
    op(code(PickleOp::kLongBinGet));
    littleEndian(memo, 4);
  }
}

void PickleWriter::littleEndian(uint64_t value, int bytes) {
  for (int i = 0; i < bytes; ++i) op(static_cast<uint8_t>(value >> (8 * i)));
}

void PickleWriter::flushIfFull() {
  if (buffer_.size() < kFlushBytes) return;
  out_.write(buffer_.data(), static_cast<std::streamsize>(buffer_.size()));
  buffer_.clear();
}

namespace {

// writePickleValue's walk: each container kept the first time, by reference after.
class ValueWriter {
 public:
  explicit ValueWriter(PickleWriter& writer) : writer_(writer) {}

  void write(const PickleValue& value) {
    switch (value.kind()) {
      case PickleKind::kNone:
        writer_.none();
        return;
      case PickleKind::kBool:
        writer_.boolean(value.boolean());
        return;
      case PickleKind::kInt:
        writer_.integer(value.integer());
        return;
      case PickleKind::kFloat:
        writer_.number(value.number());
        return;
      case PickleKind::kStr:
        writer_.str(value.text());
        return;
      case PickleKind::kBytes:
        throw Error(
            "pickle writer: a bytes value is not written (PyTorch's memory viewer reads "
            "no bytes)");
      case PickleKind::kList:
      case PickleKind::kTuple:
      case PickleKind::kSet:
      case PickleKind::kDict:
        container(value);
        return;
    }
  }

 private:
  void container(const PickleValue& value) {
    if (auto it = kept_.find(&value); it != kept_.end()) {
      writer_.ref(it->second);
      return;
    }
    if (value.kind() == PickleKind::kDict) {
      writer_.beginDict(PickleKeep::kYes);
      for (const PickleEntry& entry : value.entries()) {
        write(*entry.key);
        write(*entry.value);
      }
    } else {
      if (value.kind() == PickleKind::kTuple) {
        writer_.beginTuple(PickleKeep::kYes);
      } else {
        writer_.beginList(PickleKeep::kYes);
      }
      for (const PickleValue* item : value.items()) write(*item);
    }
    const PickleRef ref = writer_.end();
    if (ref.valid()) kept_.emplace(&value, ref);
  }

  PickleWriter& writer_;
  std::unordered_map<const PickleValue*, PickleRef> kept_;
};

}  // namespace

void writePickleValue(PickleWriter& writer, const PickleValue& value) {
  ValueWriter(writer).write(value);
}

}  // namespace memfloor::common
