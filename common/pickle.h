// The restricted reader of Python pickles: plain data only, as PyTorch's memory snapshots are.
//
// A pickle is a program for Python's pickle machine, and loading one with Python may run any code
// (GLOBAL names a function, REDUCE calls it). This reader runs the machine for protocols 0 to 5
// over the plain types only: dict, list, tuple, str, int, float, bool, None, bytes and bytearray
// (as bytes), set and frozenset (as sets). Every opcode that names, calls or builds an object
// (GLOBAL, STACK_GLOBAL, INST, OBJ, REDUCE, BUILD, NEWOBJ, NEWOBJ_EX, EXT1/2/4, PERSID, BINPERSID,
// NEXT_BUFFER, READONLY_BUFFER) is refused where it stands; nothing is ever looked up or executed.
// Also refused, each with a memfloor::Error "<name>: offset N: what is wrong" and never a crash:
// a truncated pickle, an unknown opcode, a stack underflow, a MARK missing, a memo entry never
// stored, an int outside int64, a str that is not UTF-8 as Python reads it, protocol 0's STRING
// (a Python 2 str), a container that contains itself (recursive data: Python's pickler writes
// that, a snapshot never holds it), a container changed after it was placed in another, and
// nesting deeper than kMaxPickleDepth. Bytes after STOP are ignored, as Python's pickle.loads does
// (PyTorch's memory viewer pads its pickles with zero bytes).
//
// The values form an immutable DAG that the document owns: Python memoizes every str and
// container it writes, a snapshot refers to the same frame lists and file names thousands of
// times, and each such reference here is the same PickleValue, never a copy. Memory stays in
// proportion to the input: memo indices (up to 2^32 and beyond) are hashed, never used as sizes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>

namespace memfloor::common {

// The largest pickle read: 4 GiB, as for JSON inputs (common/json_input.h).
inline constexpr uint64_t kMaxPickleInputBytes = uint64_t{1} << 32;
// The deepest nesting of containers read. A snapshot nests seven levels; consumers may recurse
// through a document without a stack of their own.
inline constexpr int kMaxPickleDepth = 128;

enum class PickleKind : uint8_t {
  kNone,
  kBool,   // boolean()
  kInt,    // integer(): Python ints within int64 (others are refused)
  kFloat,  // number()
  kStr,    // text(): UTF-8, lone surrogates (U+D800..U+DFFF) included as Python writes them
  kBytes,  // text(): the bytes of a bytes or bytearray
  kList,   // items()
  kTuple,  // items()
  kSet,    // items(): a set or frozenset, in the pickle's order
  kDict,   // entries()
};

// Python's name of a kind: "dict", "str", "None".
std::string_view toString(PickleKind kind);

class PickleValue;

// One key and its value, in the order the dict's items were set.
struct PickleEntry {
  const PickleValue* key;
  const PickleValue* value;
};

class PickleValue {
 public:
  PickleKind kind() const { return kind_; }

  // The scalar of a kBool, kInt or kFloat (an int is not a float: ask kind() first).
  bool boolean() const;
  int64_t integer() const;
  double number() const;
  // The text of a kStr or kBytes; "" for other kinds.
  std::string_view text() const;

  // The items of a kList, kTuple or kSet; empty for other kinds.
  std::span<const PickleValue* const> items() const;
  // The entries of a kDict in insertion order; empty for other kinds. Keys may be of any kind. A
  // key set twice (Python's pickler never writes that) appears twice; find() takes the later.
  std::span<const PickleEntry> entries() const;
  // The value of a kDict under the str key `key`, or under the int key `key`; nullptr when
  // there is none or this is no dict. Linear in the entries: a snapshot's dicts have a few keys
  // (index larger ones yourself).
  const PickleValue* find(std::string_view key) const;
  const PickleValue* find(int64_t key) const;

  // 0 for a scalar; for a container 1 + the deepest of its items, at most kMaxPickleDepth.
  int depth() const { return depth_; }

 private:
  friend class PickleBuilder;  // common/pickle_builder.h makes values

  PickleKind kind_ = PickleKind::kNone;
  bool open_ = false;  // a list, dict or set the machine may still add to, while it reads
  uint16_t depth_ = 0;
  size_t size_ = 0;  // the text's bytes, the items, the entries
  union {
    bool boolean;
    int64_t integer;
    double number;
    const char* text;
    const PickleValue* const* items;
    const PickleEntry* entries;
    size_t builder;  // while open_: the builder's list of its items so far, 0 for none yet
  } u_{};
};

struct PickleStore;  // common/pickle_store.h: where a document's values and texts live

// A pickle read: its root value and everything that value refers to. Move-only; the values stay
// where they are when the document moves.
class PickleDocument {
 public:
  // Made by readPickle.
  PickleDocument(std::unique_ptr<PickleStore> store, const PickleValue* root);
  PickleDocument(PickleDocument&&) noexcept;
  PickleDocument& operator=(PickleDocument&&) noexcept;
  ~PickleDocument();

  const PickleValue& root() const { return *root_; }

 private:
  std::unique_ptr<PickleStore> store_;
  const PickleValue* root_;
};

// Reads a pickle from `bytes` (kept in the document: the caller's may go); `name` names it in
// messages, as a path does. Throws memfloor::Error on anything but a pickle of plain data.
PickleDocument readPickle(std::span<const uint8_t> bytes, const std::string& name);

// The file at `path`, read whole through common::InputFile (at most kMaxPickleInputBytes) and
// then as readPickle does; `what` names it in messages ("<path>: cannot open the pickle: ...").
PickleDocument readPickleFile(const std::string& path, std::string_view what = "pickle");

// Whether `first` (a file's first bytes, two suffice) begins as pickle.dump writes protocols 2
// to 5: PROTO and the protocol. Protocols 0 and 1 have no mark to tell them by.
bool looksLikePickle(std::span<const uint8_t> first);

}  // namespace memfloor::common
