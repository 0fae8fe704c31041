// The call frame instructions, run: the row of the CFA table at an address.
#include "runtime_hook/cfa_program.h"

namespace memfloor::hook::eh {
namespace {

// DW_CFA_* opcodes (DWARF 4, section 7.23). The three primary ones keep their operand in the low
// six bits.
enum CfaOp : uint8_t {
  kCfaAdvanceLoc = 0x40,
  kCfaOffset = 0x80,
  kCfaRestore = 0xc0,
  kCfaNop = 0x00,
  kCfaSetLoc = 0x01,
  kCfaAdvanceLoc1 = 0x02,
  kCfaAdvanceLoc2 = 0x03,
  kCfaAdvanceLoc4 = 0x04,
  kCfaOffsetExtended = 0x05,
  kCfaRestoreExtended = 0x06,
  kCfaUndefined = 0x07,
  kCfaSameValue = 0x08,
  kCfaRegister = 0x09,
  kCfaRememberState = 0x0a,
  kCfaRestoreState = 0x0b,
  kCfaDefCfa = 0x0c,
  kCfaDefCfaRegister = 0x0d,
  kCfaDefCfaOffset = 0x0e,
  kCfaDefCfaExpression = 0x0f,
  kCfaExpression = 0x10,
  kCfaOffsetExtendedSf = 0x11,
  kCfaDefCfaSf = 0x12,
  kCfaDefCfaOffsetSf = 0x13,
  kCfaValOffset = 0x14,
  kCfaValOffsetSf = 0x15,
  kCfaValExpression = 0x16,
  kCfaGnuArgsSize = 0x2e,
  kCfaGnuNegativeOffsetExtended = 0x2f,
};
constexpr uint8_t kPrimaryMask = 0xc0;
constexpr uint8_t kOperandMask = 0x3f;

}  // namespace

bool CfaProgram::run(Cursor c, uint64_t loc, uint64_t target, Row& row) {
  while (!c.done()) {
    uint8_t op = 0;
    if (!c.fixed(op)) return false;
    switch (advance(op, c, loc)) {
      case Advance::kMoved:
        if (loc >= target) return true;  // the rows from here on describe later instructions
        continue;
      case Advance::kMalformed:
        return false;
      case Advance::kOtherOpcode:
        if (!registerRule(op, c, row) && !cfaRule(op, c, row)) return false;
        continue;
    }
  }
  return true;
}

CfaProgram::Advance CfaProgram::advance(uint8_t op, Cursor& c, uint64_t& loc) const {
  uint8_t d1 = 0;
  uint16_t d2 = 0;
  uint32_t d4 = 0;
  uint64_t to = 0;
  bool ok = true;
  if ((op & kPrimaryMask) == kCfaAdvanceLoc) {
    loc += (op & kOperandMask) * cie_.code_align;
  } else if (op == kCfaSetLoc) {
    ok = c.pointer(cie_.fde_encoding, to);
    loc = to;
  } else if (op == kCfaAdvanceLoc1) {
    ok = c.fixed(d1);
    loc += d1 * cie_.code_align;
  } else if (op == kCfaAdvanceLoc2) {
    ok = c.fixed(d2);
    loc += d2 * cie_.code_align;
  } else if (op == kCfaAdvanceLoc4) {
    ok = c.fixed(d4);
    loc += d4 * cie_.code_align;
  } else {
    return Advance::kOtherOpcode;
  }
  return ok ? Advance::kMoved : Advance::kMalformed;
}

bool CfaProgram::registerRule(uint8_t op, Cursor& c, Row& row) const {
  uint64_t reg = op & kOperandMask;
  uint64_t a = 0;
  int64_t s = 0;
  const RegisterRule other{RegisterRule::How::kOther, 0};
  switch (op & kPrimaryMask) {
    case kCfaOffset:
      if (!c.uleb(a)) return false;
      setOffset(row, reg, static_cast<int64_t>(a) * cie_.data_align);
      return true;
    case kCfaRestore:
      return restore(row, reg);
    default:
      break;
  }
  switch (op) {
    case kCfaOffsetExtended:
      if (!c.uleb(reg) || !c.uleb(a)) return false;
      setOffset(row, reg, static_cast<int64_t>(a) * cie_.data_align);
      return true;
    case kCfaOffsetExtendedSf:
      if (!c.uleb(reg) || !c.sleb(s)) return false;
      setOffset(row, reg, s * cie_.data_align);
      return true;
    case kCfaGnuNegativeOffsetExtended:
      if (!c.uleb(reg) || !c.uleb(a)) return false;
      setOffset(row, reg, -static_cast<int64_t>(a) * cie_.data_align);
      return true;
    case kCfaRestoreExtended:
      return c.uleb(reg) && restore(row, reg);
    case kCfaUndefined:
      if (!c.uleb(reg)) return false;
      set(row, reg, RegisterRule{RegisterRule::How::kUndefined, 0});
      return true;
    case kCfaSameValue:
      if (!c.uleb(reg)) return false;
      set(row, reg, RegisterRule{});
      return true;
    case kCfaRegister:
    case kCfaValOffset:
      if (!c.uleb(reg) || !c.uleb(a)) return false;
      set(row, reg, other);
      return true;
    case kCfaValOffsetSf:
      if (!c.uleb(reg) || !c.sleb(s)) return false;
      set(row, reg, other);
      return true;
    case kCfaExpression:
    case kCfaValExpression:
      if (!c.uleb(reg) || !c.uleb(a) || !c.skip(a)) return false;
      set(row, reg, other);
      return true;
    default:
      return false;
  }
}

bool CfaProgram::cfaRule(uint8_t op, Cursor& c, Row& row) {
  uint64_t a = 0;
  int64_t s = 0;
  switch (op) {
    case kCfaNop:
      return true;
    case kCfaGnuArgsSize:
      return c.uleb(a);
    case kCfaRememberState:
      if (depth_ == kMaxRememberedRows) return false;
      remembered_[depth_++] = row;
      return true;
    case kCfaRestoreState:  // the whole row, CFA included
      if (depth_ == 0) return false;
      row = remembered_[--depth_];
      return true;
    case kCfaDefCfa:
      if (!c.uleb(row.cfa_register) || !c.uleb(a)) return false;
      row.cfa_offset = static_cast<int64_t>(a);
      row.cfa_expression = false;
      return true;
    case kCfaDefCfaSf:
      if (!c.uleb(row.cfa_register) || !c.sleb(s)) return false;
      row.cfa_offset = s * cie_.data_align;
      row.cfa_expression = false;
      return true;
    case kCfaDefCfaRegister:
      if (!c.uleb(row.cfa_register)) return false;
      row.cfa_expression = false;
      return true;
    case kCfaDefCfaOffset:
      if (!c.uleb(a)) return false;
      row.cfa_offset = static_cast<int64_t>(a);
      return true;
    case kCfaDefCfaOffsetSf:
      if (!c.sleb(s)) return false;
      row.cfa_offset = s * cie_.data_align;
      return true;
    case kCfaDefCfaExpression:
      if (!c.uleb(a) || !c.skip(a)) return false;
      row.cfa_expression = true;
      return true;
    default:
      return false;
  }
}

RegisterRule Row::*CfaProgram::member(uint64_t reg) const {
  if (reg == kRegRbp) return &Row::rbp;
  if (reg == kRegRsp) return &Row::rsp;
  if (reg == cie_.ra_register) return &Row::ra;
  return nullptr;  // a register the walk does not follow
}

void CfaProgram::set(Row& row, uint64_t reg, RegisterRule rule) const {
  if (RegisterRule Row::*m = member(reg)) row.*m = rule;
}

void CfaProgram::setOffset(Row& row, uint64_t reg, int64_t offset) const {
  set(row, reg, RegisterRule{RegisterRule::How::kOffset, offset});
}

bool CfaProgram::restore(Row& row, uint64_t reg) const {
  if (initial_ == nullptr) return false;  // DW_CFA_restore in a CIE's own instructions
  if (RegisterRule Row::*m = member(reg)) row.*m = initial_->*m;
  return true;
}

}  // namespace memfloor::hook::eh
