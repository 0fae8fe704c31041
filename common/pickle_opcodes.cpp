// The pickle opcodes' names, as Python's pickletools prints them.
#include "common/pickle_opcodes.h"

#include <array>
#include <utility>

namespace memfloor::common {

namespace {

constexpr std::array<std::pair<PickleOp, std::string_view>, 68> kNames{{
    {PickleOp::kMark, "MARK"},
    {PickleOp::kStop, "STOP"},
    {PickleOp::kPop, "POP"},
    {PickleOp::kPopMark, "POP_MARK"},
    {PickleOp::kDup, "DUP"},
    {PickleOp::kFloat, "FLOAT"},
    {PickleOp::kInt, "INT"},
    {PickleOp::kBinInt, "BININT"},
    {PickleOp::kBinInt1, "BININT1"},
    {PickleOp::kLong, "LONG"},
    {PickleOp::kBinInt2, "BININT2"},
    {PickleOp::kNone, "NONE"},
    {PickleOp::kPersId, "PERSID"},
    {PickleOp::kBinPersId, "BINPERSID"},
    {PickleOp::kReduce, "REDUCE"},
    {PickleOp::kString, "STRING"},
    {PickleOp::kBinString, "BINSTRING"},
    {PickleOp::kShortBinString, "SHORT_BINSTRING"},
    {PickleOp::kUnicode, "UNICODE"},
    {PickleOp::kBinUnicode, "BINUNICODE"},
    {PickleOp::kAppend, "APPEND"},
    {PickleOp::kBuild, "BUILD"},
    {PickleOp::kGlobal, "GLOBAL"},
    {PickleOp::kDict, "DICT"},
    {PickleOp::kEmptyDict, "EMPTY_DICT"},
    {PickleOp::kAppends, "APPENDS"},
    {PickleOp::kGet, "GET"},
    {PickleOp::kBinGet, "BINGET"},
    {PickleOp::kInst, "INST"},
    {PickleOp::kLongBinGet, "LONG_BINGET"},
    {PickleOp::kList, "LIST"},
    {PickleOp::kEmptyList, "EMPTY_LIST"},
    {PickleOp::kObj, "OBJ"},
    {PickleOp::kPut, "PUT"},
    {PickleOp::kBinPut, "BINPUT"},
    {PickleOp::kLongBinPut, "LONG_BINPUT"},
    {PickleOp::kSetItem, "SETITEM"},
    {PickleOp::kTuple, "TUPLE"},
    {PickleOp::kEmptyTuple, "EMPTY_TUPLE"},
    {PickleOp::kSetItems, "SETITEMS"},
    {PickleOp::kBinFloat, "BINFLOAT"},
    {PickleOp::kProto, "PROTO"},
    {PickleOp::kNewObj, "NEWOBJ"},
    {PickleOp::kExt1, "EXT1"},
    {PickleOp::kExt2, "EXT2"},
    {PickleOp::kExt4, "EXT4"},
    {PickleOp::kTuple1, "TUPLE1"},
    {PickleOp::kTuple2, "TUPLE2"},
    {PickleOp::kTuple3, "TUPLE3"},
    {PickleOp::kNewTrue, "NEWTRUE"},
    {PickleOp::kNewFalse, "NEWFALSE"},
    {PickleOp::kLong1, "LONG1"},
    {PickleOp::kLong4, "LONG4"},
    {PickleOp::kBinBytes, "BINBYTES"},
    {PickleOp::kShortBinBytes, "SHORT_BINBYTES"},
    {PickleOp::kShortBinUnicode, "SHORT_BINUNICODE"},
    {PickleOp::kBinUnicode8, "BINUNICODE8"},
    {PickleOp::kBinBytes8, "BINBYTES8"},
    {PickleOp::kEmptySet, "EMPTY_SET"},
    {PickleOp::kAddItems, "ADDITEMS"},
    {PickleOp::kFrozenSet, "FROZENSET"},
    {PickleOp::kNewObjEx, "NEWOBJ_EX"},
    {PickleOp::kStackGlobal, "STACK_GLOBAL"},
    {PickleOp::kMemoize, "MEMOIZE"},
    {PickleOp::kFrame, "FRAME"},
    {PickleOp::kByteArray8, "BYTEARRAY8"},
    {PickleOp::kNextBuffer, "NEXT_BUFFER"},
    {PickleOp::kReadOnlyBuffer, "READONLY_BUFFER"},
}};

}  // namespace

std::string_view pickleOpName(uint8_t op) {
  for (const auto& [known, name] : kNames) {
    if (static_cast<uint8_t>(known) == op) return name;
  }
  return "";
}

}  // namespace memfloor::common
