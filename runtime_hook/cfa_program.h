// The call frame instructions of one CIE and FDE run up to an address (DWARF 4 section 6.4.2):
// the row of the CFA table that holds there, for the registers an x86_64 frame walk follows (the
// CFA, rbp, the return address, rsp). The subset GCC and Clang emit; anything else is refused.
#pragma once

#include <cstdint>

#include "runtime_hook/eh_frame_cursor.h"

namespace memfloor::hook::eh {

// DWARF register numbers of x86_64 (System V psABI, figure 3.36).
constexpr uint64_t kRegRbp = 6;
constexpr uint64_t kRegRsp = 7;
constexpr uint64_t kRegRa = 16;

constexpr int kMaxRememberedRows = 8;  // DW_CFA_remember_state nesting; compilers use one or two

struct Cie {
  uint64_t code_align = 1;
  int64_t data_align = 1;
  uint64_t ra_register = kRegRa;
  uint8_t fde_encoding = kPeAbsptr;
  bool augmented = false;  // 'z': FDEs carry an augmentation length
  bool signal = false;     // 'S'
  const uint8_t* instructions = nullptr;
  const uint8_t* end = nullptr;
};

// What the rows of the CFA table say about the registers the walk follows.
struct RegisterRule {
  enum class How : uint8_t { kSame, kOffset, kUndefined, kOther };
  How how = How::kSame;
  int64_t offset = 0;
};

struct Row {
  uint64_t cfa_register = kRegRsp;
  int64_t cfa_offset = 8;
  bool cfa_expression = false;
  RegisterRule rbp, ra, rsp;
};

class CfaProgram {
 public:
  CfaProgram(const Cie& cie, const Row* initial) : cie_(cie), initial_(initial) {}

  // Runs the instructions of [c.pos(), end) from location `loc` while loc < target; false on an
  // instruction it does not know or malformed data.
  bool run(Cursor c, uint64_t loc, uint64_t target, Row& row);

 private:
  enum class Advance : uint8_t { kMoved, kMalformed, kOtherOpcode };

  // The location opcodes.
  Advance advance(uint8_t op, Cursor& c, uint64_t& loc) const;
  // The opcodes that set a register's rule. False for others and on malformed operands.
  bool registerRule(uint8_t op, Cursor& c, Row& row) const;
  // The opcodes that define the CFA or keep rows, and those that change nothing the walk reads.
  // False for others and on malformed operands.
  bool cfaRule(uint8_t op, Cursor& c, Row& row);
  RegisterRule Row::*member(uint64_t reg) const;
  void set(Row& row, uint64_t reg, RegisterRule rule) const;
  void setOffset(Row& row, uint64_t reg, int64_t offset) const;
  bool restore(Row& row, uint64_t reg) const;

  const Cie& cie_;
  const Row* initial_;
  Row remembered_[kMaxRememberedRows];
  int depth_ = 0;
};

}  // namespace memfloor::hook::eh
