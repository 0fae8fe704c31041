// The restricted pickle machine behind readPickle (common/pickle.h): Python's unpickler over
// plain data only, building an immutable DAG in a PickleStore.
//
// The stack and the marks behave as in Python 3's _pickle.c: a MARK fences the stack, no opcode
// pops below the latest one, POP on an empty fence drops the mark. The values are made by a
// PickleBuilder (common/pickle_builder.h), which also refuses recursive data; the machine reads
// the input, keeps the stack and the memo, and words every message.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/pickle.h"
#include "common/pickle_builder.h"
#include "common/pickle_memo.h"

namespace memfloor::common {

class PickleMachine {
 public:
  // `name` names the input in messages.
  PickleMachine(std::unique_ptr<PickleStore> store, std::string name);

  // Runs to STOP; throws memfloor::Error on anything else.
  PickleDocument run();

 private:
  // One opcode of each family; false when `op` is not of it.
  bool stepScalar(uint8_t op);
  bool stepText(uint8_t op);
  bool stepStack(uint8_t op);
  bool stepMemo(uint8_t op);
  bool stepContainer(uint8_t op);
  bool stepAdd(uint8_t op);
  [[noreturn]] void refuse(uint8_t op);

  // The input, each read checked against its end.
  const uint8_t* take(size_t n);
  uint64_t takeLittleEndian(size_t n);
  std::string_view takeText(size_t n) { return {reinterpret_cast<const char*>(take(n)), n}; }
  std::string_view takeLine();  // up to a newline, which is read and left out

  PickleValue* str(std::string_view text);  // checked to be UTF-8

  // The stack above the latest MARK.
  void push(PickleValue* value) { stack_.push_back(value); }
  void need(size_t n);  // at least n values
  PickleValue* pop();
  PickleValue& top();
  size_t fence() const { return marks_.empty() ? 0 : marks_.back(); }
  size_t popMark();  // the index of the first item above the latest MARK, which is dropped

  // A tuple or frozenset of stack_[first...], which it replaces.
  void pushClosed(PickleKind kind, size_t first);
  // Moves stack_[first...] into the open `kind` at stack_[first - 1].
  void add(PickleKind kind, size_t first);

  PickleValue* memoGet(uint64_t index);  // refuses an index never stored

  [[noreturn]] void fail(std::string_view what) const;
  [[noreturn]] void failTooDeep() const;
  [[noreturn]] void failTruncated(size_t needed) const;

  std::unique_ptr<PickleStore> store_;
  std::string name_;
  const uint8_t* data_;
  size_t size_;
  size_t pos_ = 0;
  size_t op_at_ = 0;  // where the opcode being run starts
  uint8_t op_ = 0;

  std::vector<PickleValue*> stack_;
  std::vector<size_t> marks_;  // stack_.size() at each MARK
  PickleMemo memo_;
  PickleBuilder build_;
};

}  // namespace memfloor::common
