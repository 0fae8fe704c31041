// The opcodes of Python's pickle machine (protocols 0 to 5), by the names of Python's
// Lib/pickle.py: the contract the pickle reader and writer share.
#pragma once

#include <cstdint>
#include <string_view>

namespace memfloor::common {

// The highest protocol Python writes (3.8 and later) and this reader reads.
inline constexpr int kHighestPickleProtocol = 5;

enum class PickleOp : uint8_t {
  // Protocol 0 (text arguments end with a newline) and 1.
  kMark = '(',
  kStop = '.',
  kPop = '0',
  kPopMark = '1',
  kDup = '2',
  kFloat = 'F',    // text
  kInt = 'I',      // text; "00" and "01" are False and True
  kBinInt = 'J',   // 4 bytes, signed
  kBinInt1 = 'K',  // 1 byte, unsigned
  kLong = 'L',     // text, with a trailing 'L'
  kBinInt2 = 'M',  // 2 bytes, unsigned
  kNone = 'N',
  kPersId = 'P',     // refused: a persistent object
  kBinPersId = 'Q',  // refused
  kReduce = 'R',     // refused: calls an object
  kString = 'S',     // text: a Python 2 str, quoted
  kBinString = 'T',  // 4-byte length: a Python 2 str
  kShortBinString = 'U',
  kUnicode = 'V',     // text, raw-unicode-escape
  kBinUnicode = 'X',  // 4-byte length, UTF-8
  kAppend = 'a',
  kBuild = 'b',   // refused: sets an object's state
  kGlobal = 'c',  // refused: names a global
  kDict = 'd',
  kEmptyDict = '}',
  kAppends = 'e',
  kGet = 'g',  // text
  kBinGet = 'h',
  kInst = 'i',  // refused: names a class and calls it
  kLongBinGet = 'j',
  kList = 'l',
  kEmptyList = ']',
  kObj = 'o',  // refused: calls a class
  kPut = 'p',  // text
  kBinPut = 'q',
  kLongBinPut = 'r',
  kSetItem = 's',
  kTuple = 't',
  kEmptyTuple = ')',
  kSetItems = 'u',
  kBinFloat = 'G',  // 8 bytes, big-endian IEEE 754
  // Protocol 2.
  kProto = 0x80,
  kNewObj = 0x81,  // refused
  kExt1 = 0x82,    // refused: a registered extension (a global by number)
  kExt2 = 0x83,    // refused
  kExt4 = 0x84,    // refused
  kTuple1 = 0x85,
  kTuple2 = 0x86,
  kTuple3 = 0x87,
  kNewTrue = 0x88,
  kNewFalse = 0x89,
  kLong1 = 0x8a,  // 1-byte length, little-endian two's complement
  kLong4 = 0x8b,  // 4-byte length
  // Protocol 3.
  kBinBytes = 'B',
  kShortBinBytes = 'C',
  // Protocol 4.
  kShortBinUnicode = 0x8c,
  kBinUnicode8 = 0x8d,
  kBinBytes8 = 0x8e,
  kEmptySet = 0x8f,
  kAddItems = 0x90,
  kFrozenSet = 0x91,
  kNewObjEx = 0x92,     // refused
  kStackGlobal = 0x93,  // refused: names a global
  kMemoize = 0x94,
  kFrame = 0x95,
  // Protocol 5.
  kByteArray8 = 0x96,
  kNextBuffer = 0x97,      // refused: an out-of-band buffer
  kReadOnlyBuffer = 0x98,  // refused
};

// The opcode's name in Python's pickletools ("SHORT_BINUNICODE"), for messages; "" when `op` is
// none of the above.
std::string_view pickleOpName(uint8_t op);

}  // namespace memfloor::common
