// Reading one frame's unwind rule from .eh_frame_hdr and .eh_frame (LSB "Exception Frames",
// DWARF 4 section 6.4), the subset of call frame instructions GCC and Clang emit on x86_64.
#include "runtime_hook/frame_rule.h"

#include <link.h>

#include <cstring>
#include <type_traits>

namespace memfloor::hook {

#if defined(__x86_64__)

namespace {

// DW_EH_PE_* pointer encodings: the low nibble is the value's format, the high one what it is
// relative to.
constexpr uint8_t kPeOmit = 0xff;
constexpr uint8_t kPeFormatMask = 0x0f;
constexpr uint8_t kPeApplicationMask = 0x70;
constexpr uint8_t kPeAbsptr = 0x00;
constexpr uint8_t kPeUleb128 = 0x01;
constexpr uint8_t kPeUdata2 = 0x02;
constexpr uint8_t kPeUdata4 = 0x03;
constexpr uint8_t kPeUdata8 = 0x04;
constexpr uint8_t kPeSleb128 = 0x09;
constexpr uint8_t kPeSdata2 = 0x0a;
constexpr uint8_t kPeSdata4 = 0x0b;
constexpr uint8_t kPeSdata8 = 0x0c;
constexpr uint8_t kPePcrel = 0x10;
constexpr uint8_t kPeDatarel = 0x30;
constexpr uint8_t kPeAligned = 0x50;
// The table of .eh_frame_hdr as GNU ld, gold, lld and mold write it: datarel sdata4 pairs.
constexpr uint8_t kTableEncoding = kPeDatarel | kPeSdata4;

// DWARF register numbers of x86_64 (System V psABI, figure 3.36).
constexpr uint64_t kRegRbp = 6;
constexpr uint64_t kRegRsp = 7;
constexpr uint64_t kRegRa = 16;

constexpr int kMaxRememberedRows = 8;  // DW_CFA_remember_state nesting; compilers use one or two

// mov $15, %rax; syscall: the rt_sigreturn trampoline, which libgcc recognizes as a signal frame.
constexpr uint8_t kSigreturn[] = {0x48, 0xc7, 0xc0, 0x0f, 0x00, 0x00, 0x00, 0x0f, 0x05};

class Cursor {
 public:
  Cursor(const uint8_t* p, const uint8_t* end) : p_(p), end_(end) {}
  const uint8_t* pos() const { return p_; }
  bool done() const { return p_ >= end_; }

  template <class T>
  bool fixed(T& out) {
    if (static_cast<size_t>(end_ - p_) < sizeof(T)) return false;
    std::memcpy(&out, p_, sizeof(T));
    p_ += sizeof(T);
    return true;
  }
  bool uleb(uint64_t& out) {
    out = 0;
    for (unsigned shift = 0; p_ < end_ && shift < 64; shift += 7) {
      uint8_t byte = *p_++;
      out |= uint64_t{byte & 0x7fu} << shift;
      if ((byte & 0x80) == 0) return true;
    }
    return false;
  }
  bool sleb(int64_t& out) {
    uint64_t value = 0;
    unsigned shift = 0;
    for (; p_ < end_ && shift < 64;) {
      uint8_t byte = *p_++;
      value |= uint64_t{byte & 0x7fu} << shift;
      shift += 7;
      if ((byte & 0x80) == 0) {
        if (shift < 64 && (byte & 0x40) != 0) value |= ~uint64_t{0} << shift;
        out = static_cast<int64_t>(value);
        return true;
      }
    }
    return false;
  }
  bool skip(uint64_t n) {
    if (n > static_cast<uint64_t>(end_ - p_)) return false;
    p_ += n;
    return true;
  }
  // An encoded pointer: absolute or relative to its own field (pcrel); other bases and indirect
  // pointers do not occur in the fields read here.
  bool pointer(uint8_t encoding, uint64_t& out) {
    const uint8_t* field = p_;
    if (!value(encoding & kPeFormatMask, out) || (encoding & 0x80) != 0) return false;
    switch (encoding & kPeApplicationMask) {
      case 0:
        return true;
      case kPePcrel:
        out += reinterpret_cast<uint64_t>(field);
        return true;
      default:
        return false;
    }
  }

 private:
  bool value(uint8_t format, uint64_t& out) {
    switch (format) {
      case kPeAbsptr:
      case kPeUdata8:
      case kPeSdata8:
        return fixed(out);
      case kPeUleb128:
        return uleb(out);
      case kPeSleb128: {
        int64_t v = 0;
        if (!sleb(v)) return false;
        out = static_cast<uint64_t>(v);
        return true;
      }
      case kPeUdata2:
        return widen<uint16_t>(out);
      case kPeUdata4:
        return widen<uint32_t>(out);
      case kPeSdata2:
        return widen<int16_t>(out);
      case kPeSdata4:
        return widen<int32_t>(out);
      default:
        return false;
    }
  }
  template <class T>
  bool widen(uint64_t& out) {
    T v{};
    if (!fixed(v)) return false;
    if constexpr (std::is_signed_v<T>) {
      out = static_cast<uint64_t>(static_cast<int64_t>(v));
    } else {
      out = v;
    }
    return true;
  }
  const uint8_t* p_;
  const uint8_t* end_;
};

constexpr uint32_t kLength64 = 0xffffffffu;  // the escape to a 64-bit length

// A length-prefixed .eh_frame entry (CIE or FDE): its body is [start + 4, end). The 64-bit form
// is not written for x86_64 code, so it is refused.
bool entry(const uint8_t* start, Cursor& body, const uint8_t*& end) {
  uint32_t length = 0;
  std::memcpy(&length, start, sizeof length);
  if (length == 0 || length == kLength64) return false;
  end = start + 4 + length;
  body = Cursor(start + 4, end);
  return true;
}

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

bool readCie(const uint8_t* start, Cie& cie) {
  Cursor c(nullptr, nullptr);
  if (!entry(start, c, cie.end)) return false;
  uint32_t id = 1;
  uint8_t version = 0;
  if (!c.fixed(id) || id != 0 || !c.fixed(version) || (version != 1 && version != 3)) return false;
  const char* augmentation = reinterpret_cast<const char*>(c.pos());
  size_t augmentation_length = strnlen(augmentation, 16);
  if (augmentation_length == 16 || !c.skip(augmentation_length + 1)) return false;
  if (std::strstr(augmentation, "eh") != nullptr) return false;  // pre-3.0 GCC layout
  if (!c.uleb(cie.code_align) || !c.sleb(cie.data_align)) return false;
  if (version == 1) {
    uint8_t ra = 0;
    if (!c.fixed(ra)) return false;
    cie.ra_register = ra;
  } else if (!c.uleb(cie.ra_register)) {
    return false;
  }
  if (augmentation[0] == 'z') {
    cie.augmented = true;
    uint64_t length = 0;
    if (!c.uleb(length)) return false;
    Cursor data(c.pos(), c.pos() + length);
    if (!c.skip(length)) return false;
    for (const char* a = augmentation + 1; *a != '\0'; ++a) {
      uint8_t encoding = 0;
      uint64_t ignored = 0;
      switch (*a) {
        case 'R':
          if (!data.fixed(cie.fde_encoding)) return false;
          break;
        case 'L':
          if (!data.fixed(encoding)) return false;
          break;
        case 'P':  // the personality routine: read past (its format only), never followed
          if (!data.fixed(encoding) || (encoding & kPeApplicationMask) == kPeAligned ||
              !data.pointer(encoding & kPeFormatMask, ignored)) {
            return false;
          }
          break;
        case 'S':
          cie.signal = true;
          break;
        default:
          return false;
      }
    }
  } else if (augmentation[0] != '\0') {
    return false;
  }
  cie.instructions = c.pos();
  return true;
}

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

class CfaProgram {
 public:
  CfaProgram(const Cie& cie, const Row* initial) : cie_(cie), initial_(initial) {}

  // Runs the instructions of [c.pos(), end) from location `loc` while loc < target; false on an
  // instruction it does not know or malformed data.
  bool run(Cursor c, uint64_t loc, uint64_t target, Row& row) {
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

 private:
  enum class Advance : uint8_t { kMoved, kMalformed, kOtherOpcode };

  // The location opcodes.
  Advance advance(uint8_t op, Cursor& c, uint64_t& loc) const {
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

  // The opcodes that set a register's rule. False for others and on malformed operands.
  bool registerRule(uint8_t op, Cursor& c, Row& row) const {
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

  // The opcodes that define the CFA or keep rows, and those that change nothing the walk reads.
  // False for others and on malformed operands.
  bool cfaRule(uint8_t op, Cursor& c, Row& row) {
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

  RegisterRule Row::*member(uint64_t reg) const {
    if (reg == kRegRbp) return &Row::rbp;
    if (reg == kRegRsp) return &Row::rsp;
    if (reg == cie_.ra_register) return &Row::ra;
    return nullptr;  // a register the walk does not follow
  }
  void set(Row& row, uint64_t reg, RegisterRule rule) const {
    if (RegisterRule Row::*m = member(reg)) row.*m = rule;
  }
  void setOffset(Row& row, uint64_t reg, int64_t offset) const {
    set(row, reg, RegisterRule{RegisterRule::How::kOffset, offset});
  }
  bool restore(Row& row, uint64_t reg) const {
    if (initial_ == nullptr) return false;  // DW_CFA_restore in a CIE's own instructions
    if (RegisterRule Row::*m = member(reg)) row.*m = initial_->*m;
    return true;
  }

  const Cie& cie_;
  const Row* initial_;
  Row remembered_[kMaxRememberedRows];
  int depth_ = 0;
};

FrameRule unsupported() {
  FrameRule rule;
  rule.kind = FrameRule::Kind::kUnsupported;
  return rule;
}

FrameRule ruleOf(const Row& row) {
  FrameRule rule;
  if (row.cfa_expression || (row.cfa_register != kRegRsp && row.cfa_register != kRegRbp) ||
      row.rsp.how != RegisterRule::How::kSame) {
    return unsupported();
  }
  if (row.ra.how == RegisterRule::How::kUndefined) {
    rule.kind = FrameRule::Kind::kOutermost;
    return rule;
  }
  if (row.ra.how != RegisterRule::How::kOffset) return unsupported();
  rule.kind = FrameRule::Kind::kFrame;
  rule.cfa_from_rbp = row.cfa_register == kRegRbp;
  rule.cfa_offset = row.cfa_offset;
  rule.ra_offset = row.ra.offset;
  switch (row.rbp.how) {
    case RegisterRule::How::kSame:
      rule.rbp = FrameRule::Rbp::kSame;
      break;
    case RegisterRule::How::kOffset:
      rule.rbp = FrameRule::Rbp::kSaved;
      rule.rbp_offset = row.rbp.offset;
      break;
    default:
      rule.rbp = FrameRule::Rbp::kUnknown;
      break;
  }
  return rule;
}

// The FDE whose table entry is the last one starting at or below pc, or nullptr.
const uint8_t* lookupFde(const uint8_t* hdr, uint64_t pc, bool& searchable) {
  searchable = false;
  const uint8_t version = hdr[0];
  const uint8_t frame_pointer_encoding = hdr[1];
  const uint8_t count_encoding = hdr[2];
  const uint8_t table_encoding = hdr[3];
  if (version != 1 || count_encoding == kPeOmit || table_encoding != kTableEncoding) {
    return nullptr;
  }
  Cursor c(hdr + 4, hdr + 4 + 2 * sizeof(uint64_t));
  uint64_t eh_frame = 0;
  uint64_t count = 0;
  if (!c.pointer(frame_pointer_encoding, eh_frame) || !c.pointer(count_encoding, count)) {
    return nullptr;
  }
  searchable = true;
  struct Entry {
    int32_t start;
    int32_t fde;
  };
  const uint8_t* table = c.pos();
  const auto base = reinterpret_cast<uint64_t>(hdr);
  auto at = [&](uint64_t i) {
    Entry e{};
    std::memcpy(&e, table + i * sizeof(Entry), sizeof e);
    return e;
  };
  uint64_t lo = 0;
  uint64_t hi = count;  // the answer is the last entry in [lo, hi) starting at or below pc
  while (lo < hi) {
    uint64_t mid = lo + (hi - lo) / 2;
    if (base + static_cast<uint64_t>(static_cast<int64_t>(at(mid).start)) <= pc) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  if (lo == 0) return nullptr;
  return hdr + at(lo - 1).fde;
}

struct ModuleSearch {
  uint64_t address;  // a return address: the module holds address - 1
  FrameRule rule;
};

// Reads the rule while dl_iterate_phdr holds the loader's lock, as libgcc does, so the module
// stays mapped throughout.
int ruleInModule(dl_phdr_info* info, size_t, void* arg) {
  auto* search = static_cast<ModuleSearch*>(arg);
  const uint64_t pc = search->address - 1;
  const uint8_t* hdr = nullptr;
  uint64_t segment_end = 0;
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& ph = info->dlpi_phdr[i];
    uint64_t start = info->dlpi_addr + ph.p_vaddr;
    if (ph.p_type == PT_LOAD && pc >= start && pc < start + ph.p_memsz) {
      segment_end = start + ph.p_memsz;
    }
    if (ph.p_type == PT_GNU_EH_FRAME) hdr = reinterpret_cast<const uint8_t*>(start);
  }
  if (segment_end == 0) return 0;
  // No .eh_frame_hdr: libgcc decides (it may know frames registered at run time).
  if (hdr == nullptr) return 1;
  search->rule = frameRuleFrom(hdr, search->address);
  if (search->rule.kind == FrameRule::Kind::kNone &&
      (search->address + sizeof kSigreturn > segment_end ||
       std::memcmp(reinterpret_cast<const void*>(search->address), kSigreturn, sizeof kSigreturn) ==
           0)) {
    search->rule = unsupported();  // a signal handler's return trampoline: libgcc steps through it
  }
  return 1;
}

}  // namespace

FrameRule frameRuleFrom(const uint8_t* eh_frame_hdr, uint64_t address) {
  const uint64_t pc = address - 1;  // inside the call instruction (or the current one)
  bool searchable = false;
  const uint8_t* fde = lookupFde(eh_frame_hdr, pc, searchable);
  if (!searchable) return unsupported();
  FrameRule none;
  if (fde == nullptr) return none;
  Cursor c(nullptr, nullptr);
  const uint8_t* fde_end = nullptr;
  if (!entry(fde, c, fde_end)) return unsupported();
  uint32_t cie_pointer = 0;
  if (!c.fixed(cie_pointer) || cie_pointer == 0) return unsupported();
  Cie cie;
  if (!readCie(fde + 4 - cie_pointer, cie) || cie.signal) return unsupported();
  uint64_t begin = 0;
  uint64_t range = 0;
  if (!c.pointer(cie.fde_encoding, begin) || !c.pointer(cie.fde_encoding & kPeFormatMask, range)) {
    return unsupported();
  }
  if (pc < begin || pc - begin >= range) return none;  // a gap between two entries
  uint64_t augmentation = 0;
  if (cie.augmented && (!c.uleb(augmentation) || !c.skip(augmentation))) return unsupported();

  Row initial;
  CfaProgram cie_program(cie, nullptr);
  if (!cie_program.run(Cursor(cie.instructions, cie.end), 0, UINT64_MAX, initial)) {
    return unsupported();
  }
  Row row = initial;
  CfaProgram fde_program(cie, &initial);
  if (!fde_program.run(c, begin, address, row)) return unsupported();
  return ruleOf(row);
}

FrameRule findFrameRule(uint64_t address) {
  // Without a module (JIT code, which libgcc may find among frames registered at run time),
  // libgcc decides.
  ModuleSearch search{address, unsupported()};
  dl_iterate_phdr(ruleInModule, &search);
  return search.rule;
}

#else  // the walk by rules is written for x86_64 only; elsewhere libgcc unwinds every stack

FrameRule frameRuleFrom(const uint8_t*, uint64_t) {
  FrameRule rule;
  rule.kind = FrameRule::Kind::kUnsupported;
  return rule;
}

FrameRule findFrameRule(uint64_t address) { return frameRuleFrom(nullptr, address); }

#endif

}  // namespace memfloor::hook
