// Reading one frame's unwind rule from .eh_frame_hdr and .eh_frame (LSB "Exception Frames",
// DWARF 4 section 6.4): the FDE that covers an address, its CIE, and their instructions run up to
// it (cfa_program.h).
#include "runtime_hook/frame_rule.h"

#include <link.h>

#include <cstring>

#include "runtime_hook/cfa_program.h"
#include "runtime_hook/eh_frame_cursor.h"

namespace memfloor::hook {

#if defined(__x86_64__)

namespace {

using eh::CfaProgram;
using eh::Cie;
using eh::Cursor;
using eh::RegisterRule;
using eh::Row;

// mov $15, %rax; syscall: the rt_sigreturn trampoline, which libgcc recognizes as a signal frame.
constexpr uint8_t kSigreturn[] = {0x48, 0xc7, 0xc0, 0x0f, 0x00, 0x00, 0x00, 0x0f, 0x05};

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
          if (!data.fixed(encoding) || (encoding & eh::kPeApplicationMask) == eh::kPeAligned ||
              !data.pointer(encoding & eh::kPeFormatMask, ignored)) {
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

FrameRule unsupported() {
  FrameRule rule;
  rule.kind = FrameRule::Kind::kUnsupported;
  return rule;
}

FrameRule ruleOf(const Row& row) {
  FrameRule rule;
  if (row.cfa_expression || (row.cfa_register != eh::kRegRsp && row.cfa_register != eh::kRegRbp) ||
      row.rsp.how != RegisterRule::How::kSame) {
    return unsupported();
  }
  if (row.ra.how == RegisterRule::How::kUndefined) {
    rule.kind = FrameRule::Kind::kOutermost;
    return rule;
  }
  if (row.ra.how != RegisterRule::How::kOffset) return unsupported();
  rule.kind = FrameRule::Kind::kFrame;
  rule.cfa_from_rbp = row.cfa_register == eh::kRegRbp;
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
  if (version != 1 || count_encoding == eh::kPeOmit || table_encoding != eh::kTableEncoding) {
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
  if (!c.pointer(cie.fde_encoding, begin) ||
      !c.pointer(cie.fde_encoding & eh::kPeFormatMask, range)) {
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
