// The restricted pickle machine: Python's unpickler for plain data, opcode by opcode.
#include "common/pickle_machine.h"

#include <fmt/core.h>

#include <algorithm>
#include <bit>
#include <cstring>
#include <optional>
#include <utility>

#include "common/error.h"
#include "common/pickle_opcodes.h"
#include "common/pickle_scalars.h"
#include "common/pickle_store.h"
#include "common/utf8.h"

namespace memfloor::common {

namespace {

constexpr std::string_view kPlainOnly =
    "; only plain data (dict, list, tuple, str, int, float, bool, None) is read";
// How much of a name from the input a message quotes.
constexpr size_t kQuotedBytes = 200;

std::string quoted(std::string_view text) {
  if (text.size() <= kQuotedBytes) return std::string(text);
  return fmt::format("{}...", text.substr(0, kQuotedBytes));
}

}  // namespace

PickleMachine::PickleMachine(std::unique_ptr<PickleStore> store, std::string name)
    : store_(std::move(store)),
      name_(std::move(name)),
      data_(reinterpret_cast<const uint8_t*>(store_->bytes.data())),
      size_(store_->bytes.size()),
      build_(*store_) {}

PickleDocument PickleMachine::run() {
  for (;;) {
    op_at_ = pos_;
    if (pos_ == size_) fail("truncated: the data ends before STOP");
    op_ = data_[pos_++];
    if (op_ == static_cast<uint8_t>(PickleOp::kStop)) {
      PickleValue* root = pop();
      build_.close(*root);
      return {std::move(store_), root};
    }
    if (!stepText(op_) && !stepMemo(op_) && !stepScalar(op_) && !stepAdd(op_) &&
        !stepContainer(op_) && !stepStack(op_)) {
      refuse(op_);
    }
  }
}

bool PickleMachine::stepScalar(uint8_t op) {
  switch (static_cast<PickleOp>(op)) {
    case PickleOp::kNone:
      push(build_.none());
      return true;
    case PickleOp::kNewTrue:
    case PickleOp::kNewFalse:
      push(build_.boolean(op == static_cast<uint8_t>(PickleOp::kNewTrue)));
      return true;
    case PickleOp::kBinInt1:
      push(build_.integer(*take(1)));
      return true;
    case PickleOp::kBinInt2:
      push(build_.integer(static_cast<int64_t>(takeLittleEndian(2))));
      return true;
    case PickleOp::kBinInt:
      push(build_.integer(static_cast<int32_t>(takeLittleEndian(4))));
      return true;
    case PickleOp::kLong1:
    case PickleOp::kLong4: {
      uint64_t length = 0;
      if (op == static_cast<uint8_t>(PickleOp::kLong1)) {
        length = takeLittleEndian(1);
      } else {
        const auto signed_length = static_cast<int32_t>(takeLittleEndian(4));
        if (signed_length < 0) fail("LONG4 has a negative length");
        length = static_cast<uint64_t>(signed_length);
      }
      const std::optional<int64_t> value = twosComplement({take(length), length});
      if (!value) fail("an int larger than 64 bits; only ints within int64 are read");
      push(build_.integer(*value));
      return true;
    }
    case PickleOp::kInt:
    case PickleOp::kLong: {
      std::string_view line = takeLine();
      if (op == static_cast<uint8_t>(PickleOp::kInt) && (line == "00" || line == "01")) {
        push(build_.boolean(line == "01"));
        return true;
      }
      if (op == static_cast<uint8_t>(PickleOp::kLong) && !line.empty() && line.back() == 'L') {
        line.remove_suffix(1);
      }
      const std::optional<int64_t> value = decimalInt(line);
      if (!value) fail(fmt::format("'{}' is not a decimal int within int64", quoted(line)));
      push(build_.integer(*value));
      return true;
    }
    case PickleOp::kBinFloat: {
      const uint8_t* bytes = take(sizeof(double));
      uint64_t bits = 0;
      for (size_t i = 0; i < sizeof(double); ++i) bits = (bits << 8) | bytes[i];  // big-endian
      push(build_.number(std::bit_cast<double>(bits)));
      return true;
    }
    case PickleOp::kFloat: {
      const std::string_view line = takeLine();
      const std::optional<double> value = decimalFloat(line);
      if (!value) fail(fmt::format("'{}' is not a float", quoted(line)));
      push(build_.number(*value));
      return true;
    }
    default:
      return false;
  }
}

bool PickleMachine::stepText(uint8_t op) {
  size_t width = 0;  // the bytes of the text's length
  PickleKind kind = PickleKind::kStr;
  switch (static_cast<PickleOp>(op)) {
    case PickleOp::kShortBinUnicode:
    case PickleOp::kShortBinString:  // Python 2's str, which Python 3 reads as a str
      width = 1;
      break;
    case PickleOp::kBinUnicode:
      width = 4;
      break;
    case PickleOp::kBinUnicode8:
      width = 8;
      break;
    case PickleOp::kShortBinBytes:
      width = 1;
      kind = PickleKind::kBytes;
      break;
    case PickleOp::kBinBytes:
      width = 4;
      kind = PickleKind::kBytes;
      break;
    case PickleOp::kBinBytes8:
    case PickleOp::kByteArray8:  // a bytearray is read as bytes
      width = 8;
      kind = PickleKind::kBytes;
      break;
    case PickleOp::kBinString: {
      const auto length = static_cast<int32_t>(takeLittleEndian(4));
      if (length < 0) fail("BINSTRING has a negative length");
      push(str(takeText(static_cast<size_t>(length))));
      return true;
    }
    case PickleOp::kUnicode: {
      std::optional<std::string> text = rawUnicodeEscape(takeLine());
      if (!text) fail("UNICODE's text has a bad \\u or \\U escape");
      push(build_.text(PickleKind::kStr, store_->texts.emplace_back(std::move(*text))));
      return true;
    }
    case PickleOp::kString:
      fail("protocol 0's STRING (a Python 2 str) is not read; write the pickle with Python 3");
    default:
      return false;
  }
  const std::string_view text = takeText(takeLittleEndian(width));
  push(kind == PickleKind::kStr ? str(text) : build_.text(kind, text));
  return true;
}

bool PickleMachine::stepStack(uint8_t op) {
  switch (static_cast<PickleOp>(op)) {
    case PickleOp::kMark:
      marks_.push_back(stack_.size());
      return true;
    case PickleOp::kPop:
      // As Python's: a POP with nothing above the latest MARK drops the MARK.
      if (!marks_.empty() && marks_.back() == stack_.size()) {
        marks_.pop_back();
      } else {
        pop();
      }
      return true;
    case PickleOp::kPopMark:
      stack_.resize(popMark());
      return true;
    case PickleOp::kDup:
      push(&top());
      return true;
    case PickleOp::kProto: {
      const uint8_t protocol = *take(1);
      if (protocol > kHighestPickleProtocol) {
        fail(fmt::format("pickle protocol {} is not read (protocols 0 to {} are)", protocol,
                         kHighestPickleProtocol));
      }
      return true;
    }
    case PickleOp::kFrame: {
      // Frames only group opcodes for reading ahead; their length is checked, nothing more.
      const uint64_t length = takeLittleEndian(8);
      if (length > size_ - pos_) failTruncated(length);
      return true;
    }
    default:
      return false;
  }
}

bool PickleMachine::stepMemo(uint8_t op) {
  auto textIndex = [&] {
    const std::string_view line = takeLine();
    const std::optional<int64_t> index = decimalInt(line);
    if (!index || *index < 0) fail(fmt::format("'{}' is not a memo index", quoted(line)));
    return static_cast<uint64_t>(*index);
  };
  uint64_t index = 0;
  switch (static_cast<PickleOp>(op)) {
    case PickleOp::kPut:
      index = textIndex();
      break;
    case PickleOp::kBinPut:
      index = takeLittleEndian(1);
      break;
    case PickleOp::kLongBinPut:
      index = takeLittleEndian(4);
      break;
    case PickleOp::kMemoize:  // the next entry, as Python's len(memo)
      index = memo_.size();
      break;
    case PickleOp::kGet:
      push(memoGet(textIndex()));
      return true;
    case PickleOp::kBinGet:
      push(memoGet(takeLittleEndian(1)));
      return true;
    case PickleOp::kLongBinGet:
      push(memoGet(takeLittleEndian(4)));
      return true;
    default:
      return false;
  }
  memo_.put(index, &top());
  return true;
}

bool PickleMachine::stepContainer(uint8_t op) {
  size_t tuple = 0;  // TUPLE1, TUPLE2, TUPLE3: the items taken from the stack
  switch (static_cast<PickleOp>(op)) {
    case PickleOp::kEmptyTuple:
      push(build_.emptyTuple());
      return true;
    case PickleOp::kEmptyList:
      push(build_.open(PickleKind::kList));
      return true;
    case PickleOp::kEmptyDict:
      push(build_.open(PickleKind::kDict));
      return true;
    case PickleOp::kEmptySet:
      push(build_.open(PickleKind::kSet));
      return true;
    case PickleOp::kTuple: {
      const size_t first = popMark();
      pushClosed(PickleKind::kTuple, first);
      return true;
    }
    case PickleOp::kFrozenSet: {
      const size_t first = popMark();
      pushClosed(PickleKind::kSet, first);
      return true;
    }
    case PickleOp::kTuple1:
      tuple = 1;
      break;
    case PickleOp::kTuple2:
      tuple = 2;
      break;
    case PickleOp::kTuple3:
      tuple = 3;
      break;
    default:
      return false;
  }
  need(tuple);
  pushClosed(PickleKind::kTuple, stack_.size() - tuple);
  return true;
}

bool PickleMachine::stepAdd(uint8_t op) {
  PickleKind kind = PickleKind::kList;  // what the items are added to
  size_t first = 0;                     // the first item on the stack
  switch (static_cast<PickleOp>(op)) {
    case PickleOp::kAppend:
      need(2);
      first = stack_.size() - 1;
      break;
    case PickleOp::kAppends:
      first = popMark();
      break;
    case PickleOp::kSetItem:
      need(3);
      first = stack_.size() - 2;
      kind = PickleKind::kDict;
      break;
    case PickleOp::kSetItems:
      first = popMark();
      kind = PickleKind::kDict;
      break;
    case PickleOp::kAddItems:
      first = popMark();
      kind = PickleKind::kSet;
      break;
    case PickleOp::kList:
    case PickleOp::kDict: {
      // A new container of the items above the MARK, put below them.
      first = popMark();
      kind = op == static_cast<uint8_t>(PickleOp::kList) ? PickleKind::kList : PickleKind::kDict;
      stack_.insert(stack_.begin() + static_cast<ptrdiff_t>(first), build_.open(kind));
      add(kind, first + 1);
      return true;
    }
    default:
      return false;
  }
  if (first <= fence())
    fail(fmt::format("stack underflow: {} has no {} to add to", pickleOpName(op), toString(kind)));
  if (stack_[first - 1]->kind() != kind) {
    fail(fmt::format("{} adds to a {}, not to a {}", pickleOpName(op),
                     toString(stack_[first - 1]->kind()), toString(kind)));
  }
  add(kind, first);
  return true;
}

void PickleMachine::refuse(uint8_t op) {
  switch (static_cast<PickleOp>(op)) {
    case PickleOp::kGlobal:
    case PickleOp::kInst: {
      const std::string_view module = takeLine();
      const std::string_view name = takeLine();
      fail(fmt::format("the pickle names the global '{} {}'{}", quoted(module), quoted(name),
                       kPlainOnly));
    }
    case PickleOp::kStackGlobal: {
      // The module and the name are the two values below, when they are strs.
      const size_t n = stack_.size();
      if (n - fence() >= 2 && stack_[n - 2]->kind() == PickleKind::kStr &&
          stack_[n - 1]->kind() == PickleKind::kStr) {
        fail(fmt::format("the pickle names the global '{} {}'{}", quoted(stack_[n - 2]->text()),
                         quoted(stack_[n - 1]->text()), kPlainOnly));
      }
      fail(fmt::format("the pickle names a global (STACK_GLOBAL){}", kPlainOnly));
    }
    case PickleOp::kReduce:
      fail(fmt::format("the pickle calls an object (REDUCE){}", kPlainOnly));
    case PickleOp::kBuild:
      fail(fmt::format("the pickle sets an object's state (BUILD){}", kPlainOnly));
    case PickleOp::kObj:
    case PickleOp::kNewObj:
    case PickleOp::kNewObjEx:
      fail(fmt::format("the pickle builds an object ({}){}", pickleOpName(op), kPlainOnly));
    case PickleOp::kExt1:
    case PickleOp::kExt2:
    case PickleOp::kExt4:
      fail(fmt::format("the pickle names a registered extension ({}){}", pickleOpName(op),
                       kPlainOnly));
    case PickleOp::kPersId:
    case PickleOp::kBinPersId:
      fail(fmt::format("the pickle refers to a persistent object ({}){}", pickleOpName(op),
                       kPlainOnly));
    case PickleOp::kNextBuffer:
    case PickleOp::kReadOnlyBuffer:
      fail(fmt::format("the pickle refers to an out-of-band buffer ({}){}", pickleOpName(op),
                       kPlainOnly));
    default:
      fail(fmt::format("unknown opcode 0x{:02x}: not a pickle, or one of a protocol newer than {}",
                       op, kHighestPickleProtocol));
  }
}

const uint8_t* PickleMachine::take(size_t n) {
  if (n > size_ - pos_) failTruncated(n);
  const uint8_t* at = data_ + pos_;
  pos_ += n;
  return at;
}

uint64_t PickleMachine::takeLittleEndian(size_t n) { return littleEndian({take(n), n}); }

std::string_view PickleMachine::takeLine() {
  const void* newline = std::memchr(data_ + pos_, '\n', size_ - pos_);
  if (newline == nullptr) {
    fail(fmt::format("truncated: {}'s line has no newline before the end", pickleOpName(op_)));
  }
  const size_t length = static_cast<const uint8_t*>(newline) - (data_ + pos_);
  const std::string_view line = takeText(length);
  ++pos_;
  return line;
}

PickleValue* PickleMachine::str(std::string_view text) {
  const size_t valid = utf8Prefix(text);
  if (valid != text.size()) {
    fail(fmt::format("{}'s text is not UTF-8 (at its byte {})", pickleOpName(op_), valid));
  }
  return build_.text(PickleKind::kStr, text);
}

void PickleMachine::need(size_t n) {
  if (stack_.size() - fence() < n) {
    fail(fmt::format("stack underflow: {} needs {} value{}{}", pickleOpName(op_), n,
                     n == 1 ? "" : "s", marks_.empty() ? "" : " above the latest MARK"));
  }
}

PickleValue* PickleMachine::pop() {
  need(1);
  PickleValue* value = stack_.back();
  stack_.pop_back();
  return value;
}

PickleValue& PickleMachine::top() {
  need(1);
  return *stack_.back();
}

size_t PickleMachine::popMark() {
  if (marks_.empty()) fail(fmt::format("{} needs a MARK, and there is none", pickleOpName(op_)));
  const size_t first = marks_.back();
  marks_.pop_back();
  return first;
}

void PickleMachine::pushClosed(PickleKind kind, size_t first) {
  PickleValue* value = build_.closed(kind, {stack_.data() + first, stack_.size() - first});
  if (value == nullptr) failTooDeep();
  stack_.resize(first);
  push(value);
}

void PickleMachine::add(PickleKind kind, size_t first) {
  const std::span<PickleValue* const> items(stack_.data() + first, stack_.size() - first);
  if (kind == PickleKind::kDict && items.size() % 2 != 0) {
    fail(fmt::format("{} has a key without a value", pickleOpName(op_)));
  }
  switch (build_.add(*stack_[first - 1], items)) {
    case PickleBuilder::Added::kYes:
      break;
    case PickleBuilder::Added::kTooDeep:
      failTooDeep();
    case PickleBuilder::Added::kTargetClosed:
      fail(
          fmt::format("{} adds to a {} already placed in a container: recursive data (a "
                      "container inside itself) is not read",
                      pickleOpName(op_), toString(kind)));
  }
  stack_.resize(first);
}

PickleValue* PickleMachine::memoGet(uint64_t index) {
  PickleValue* value = memo_.get(index);
  if (value == nullptr) {
    fail(fmt::format("{} of memo entry {}, which was never stored", pickleOpName(op_), index));
  }
  return value;
}

void PickleMachine::fail(std::string_view what) const {
  throw Error(fmt::format("{}: offset {}: {}", name_, op_at_, what));
}

void PickleMachine::failTooDeep() const {
  fail(fmt::format("containers nested deeper than {} levels", kMaxPickleDepth));
}

void PickleMachine::failTruncated(size_t needed) const {
  fail(fmt::format("truncated: {} needs {} byte{}, {} left", pickleOpName(op_), needed,
                   needed == 1 ? "" : "s", size_ - pos_));
}

}  // namespace memfloor::common
