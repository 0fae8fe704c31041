// The unwind rule of one return address on x86_64, read from its module's .eh_frame through the
// sorted table of .eh_frame_hdr: where the caller's frame (the CFA), the return address and the
// caller's frame pointer are. Only the rules that compiled code uses for ordinary frames are
// represented; anything else is kUnsupported, and such a stack is unwound by libgcc instead.
#pragma once

#include <cstdint>

namespace memfloor::hook {

struct FrameRule {
  enum class Kind : uint8_t {
    kNone,         // the module has no unwind entry for the address: the stack ends there
    kUnsupported,  // no module, no .eh_frame_hdr, a signal frame or a rule not represented here
    kFrame,        // an ordinary frame, described by the fields below
    kOutermost,    // the return address is undefined (_start, clone): the stack ends there
  };
  enum class Rbp : uint8_t {
    kSame,     // the caller's rbp is this frame's
    kSaved,    // the caller's rbp is at CFA + rbp_offset
    kUnknown,  // not recoverable (a register or an expression): no later CFA may need it
  };
  Kind kind = Kind::kNone;
  bool cfa_from_rbp = false;  // CFA = rbp + cfa_offset, else rsp + cfa_offset
  int64_t cfa_offset = 0;
  int64_t ra_offset = 0;  // the return address is at CFA + ra_offset
  Rbp rbp = Rbp::kSame;
  int64_t rbp_offset = 0;
};

// The rule of the frame whose return address (or current instruction, one byte past the
// instruction being executed) is `address`: the entry covering address - 1, its instructions run
// up to address, as DWARF unwinders do. Finds the module through dl_iterate_phdr (the loader's
// lock, as libgcc takes it); allocates nothing. kUnsupported on other architectures.
FrameRule findFrameRule(uint64_t address);

// The same, given the module's .eh_frame_hdr (as PT_GNU_EH_FRAME maps it).
FrameRule frameRuleFrom(const uint8_t* eh_frame_hdr, uint64_t address);

}  // namespace memfloor::hook
