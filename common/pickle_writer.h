// The pickle writer: plain data streamed as a protocol 4 pickle that Python's pickle and PyTorch's
// memory viewer (torch/utils/viz/MemoryViz.js, pytorch.org/memory_viz) both load.
//
// MemoryViz.js has an unpickler of its own that knows PROTO 2 to 4 and a short list of opcodes;
// the writer uses only opcodes on that list:
//
//   \x80 \x04                          PROTO 4 (Python's default protocol since 3.8)
//   N  \x88  \x89                      NONE, NEWTRUE, NEWFALSE
//   K b | M bb | J bbbb | \x8a n b..   BININT1, BININT2, BININT, LONG1: the shortest, as Python's
//                                      pickler picks (LONG1 holds at most 8 bytes here)
//   G bbbbbbbb                         BINFLOAT, big-endian
//   \x8c n text | X nnnn text          SHORT_BINUNICODE, BINUNICODE: a str, then MEMOIZE
//   \x94                               MEMOIZE: memo entries numbered in order, as both readers
//                                      count them (the JS one ignores BINPUT's index)
//   h i | j iiii                       BINGET, LONG_BINGET: a str or kept container again
//   ]  (  item ... e                   EMPTY_LIST, then MARK ... APPENDS per 1000 items
//   }  (  key value ... u              EMPTY_DICT, then MARK ... SETITEMS per 1000 pairs
//   (  item ... t                      MARK ... TUPLE (a tuple's length is unknown at its start)
//   .                                  STOP
//
// Batches of 1000 are Python's (and the JS reader spreads a batch as call arguments, which have a
// limit). Not written: FRAME (optional for readers, and a streaming writer would hold 64 KiB per
// frame), bytes, sets and BINUNICODE8 (the JS reader has none of them). Every str is memoized the
// first time (as Python's pickler does): the file names and keys a snapshot repeats are written
// once. A container begun with PickleKeep::kYes is memoized too and can be written again by
// reference, so that a frame list shared by many blocks is written once and read back shared.
#pragma once

#include <cstdint>
#include <functional>
#include <ostream>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace memfloor::common {

class PickleValue;

enum class PickleKeep : bool { kNo, kYes };

// A container written with PickleKeep::kYes: its memo entry.
struct PickleRef {
  static constexpr uint32_t kNone = UINT32_MAX;
  uint32_t memo = kNone;
  bool valid() const { return memo != kNone; }
};

class PickleWriter {
 public:
  // Writes PROTO 4 to `out`, which must outlive the writer. Writes go through a buffer; the
  // stream's errors are the caller's to check after finish(). A file is written as every output:
  //   OutputFile file(path, "memory snapshot");   // common/output_file.h
  //   PickleWriter writer(file.stream());
  //   ... writer.finish();
  //   file.commit();                               // throws what the writes met
  explicit PickleWriter(std::ostream& out);
  PickleWriter(const PickleWriter&) = delete;
  PickleWriter& operator=(const PickleWriter&) = delete;

  // One value each: the document's root, an item of the innermost open container, or in a dict
  // a key and a value in turn.
  void none();
  void boolean(bool value);
  void integer(int64_t value);
  void number(double value);
  void str(std::string_view text);  // UTF-8; each invalid byte is written as U+FFFD

  // Containers: begin, the items, end(). end() returns the reference of a kept container (an
  // invalid one otherwise).
  void beginList(PickleKeep keep = PickleKeep::kNo);
  void beginDict(PickleKeep keep = PickleKeep::kNo);
  void beginTuple(PickleKeep keep = PickleKeep::kNo);
  PickleRef end();
  // A kept container again, by reference: read back, it is the same object. It must be ended.
  void ref(PickleRef kept);

  // STOP, and the buffer flushed: once, after the root value.
  void finish();

 private:
  enum class Container : uint8_t { kList, kDict, kTuple };
  struct Open {
    Container kind;
    PickleRef ref;  // a kept list or dict: memoized at its start; a tuple: at its end
    bool keep;
    uint32_t batched = 0;  // values since the last MARK: items, or keys and values
  };

  void begin(Container kind, PickleKeep keep);
  void beforeValue();
  void afterValue();
  PickleRef memoize();  // MEMOIZE: the next memo entry, or none once 2^32 are used
  void get(uint32_t memo);
  void op(uint8_t code) { buffer_ += static_cast<char>(code); }
  void littleEndian(uint64_t value, int bytes);
  void flushIfFull();

  std::ostream& out_;
  std::string buffer_;
  std::vector<Open> open_;
  // The memo entries of the strs written, looked up by string_view.
  struct StrHash {
    using is_transparent = void;
    size_t operator()(std::string_view text) const { return std::hash<std::string_view>{}(text); }
  };
  std::unordered_map<std::string, uint32_t, StrHash, std::equal_to<>> strs_;
  uint32_t memo_count_ = 0;
  bool root_written_ = false;
  bool finished_ = false;
};

// Writes `value` and all it holds, each container once (kept, then by reference), so that a
// document read by readPickle is written in proportion to its size and read back with the same
// sharing. A set is written as a list. Throws memfloor::Error for a bytes value: the memory
// viewer reads no bytes.
void writePickleValue(PickleWriter& writer, const PickleValue& value);

}  // namespace memfloor::common
