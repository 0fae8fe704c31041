// Unwind rules read from .eh_frame: a hand-assembled .eh_frame_hdr, CIE and FDE (the rows of a
// function with a frame pointer, each at the address where it starts to apply), and the rules of
// this binary's own frames.
#include "runtime_hook/frame_rule.h"

#include <catch2/catch.hpp>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "runtime_hook/native_unwinder.h"

using namespace memfloor;
using Kind = hook::FrameRule::Kind;
using Rbp = hook::FrameRule::Rbp;

namespace {

// One function's unwind data laid out as a linker writes it: .eh_frame_hdr (one table entry),
// then .eh_frame (a CIE with augmentation "zR" or `augmentation`, one FDE, a terminator). The
// function's code is a made-up address past the buffer: nothing reads it.
class EhFrame {
 public:
  static constexpr uint64_t kCodeOffset = 0x1000;
  static constexpr uint64_t kRange = 0x100;

  explicit EhFrame(const std::vector<uint8_t>& instructions, const std::string& augmentation = "zR")
      : bytes_(512, 0) {
    const size_t cie = 24;
    std::vector<uint8_t> c = {0, 0, 0, 0, 1};  // CIE id 0, version 1
    c.insert(c.end(), augmentation.begin(), augmentation.end());
    c.push_back(0);
    c.insert(c.end(), {1, 0x78, 16, 1, 0x1b});  // code 1, data -8, RA r16; 'R': pcrel sdata4
    c.insert(c.end(), {0x0c, 7, 8, 0x90, 1});   // CFA = rsp + 8; RA at CFA - 8
    putEntry(cie, c);
    const size_t fde = cie + 4 + c.size();
    std::vector<uint8_t> f(12, 0);  // CIE pointer, pc_begin, pc_range
    f.push_back(0);                 // augmentation length
    f.insert(f.end(), instructions.begin(), instructions.end());
    put32(f, 0, static_cast<uint32_t>(fde + 4 - cie));
    put32(f, 4, static_cast<uint32_t>(begin() - address(fde + 8)));
    put32(f, 8, static_cast<uint32_t>(kRange));
    putEntry(fde, f);
    // .eh_frame_hdr: version 1, eh_frame_ptr pcrel sdata4, count udata4, table datarel sdata4.
    const uint8_t header[] = {1, 0x1b, 0x03, 0x3b};
    std::memcpy(bytes_.data(), header, 4);
    putAt(4, static_cast<uint32_t>(cie - 4));
    putAt(8, 1);
    putAt(12, static_cast<uint32_t>(kCodeOffset));
    putAt(16, static_cast<uint32_t>(fde));
  }

  uint64_t begin() const { return address(0) + kCodeOffset; }
  // The rule of the frame whose return address is begin() + offset.
  hook::FrameRule at(uint64_t offset) const {
    return hook::frameRuleFrom(bytes_.data(), begin() + offset);
  }

 private:
  uint64_t address(size_t offset) const { return reinterpret_cast<uint64_t>(&bytes_[offset]); }
  static void put32(std::vector<uint8_t>& v, size_t at, uint32_t value) {
    std::memcpy(&v[at], &value, 4);
  }
  void putAt(size_t at, uint32_t value) { std::memcpy(&bytes_[at], &value, 4); }
  void putEntry(size_t at, const std::vector<uint8_t>& body) {
    putAt(at, static_cast<uint32_t>(body.size()));
    std::memcpy(&bytes_[at + 4], body.data(), body.size());
  }
  std::vector<uint8_t> bytes_;
};

// push %rbp; mov %rsp,%rbp; ...; a remembered row around an epilogue that is left early.
const std::vector<uint8_t> kFramePointerFunction = {
    0x41,           // advance 1 (after push %rbp)
    0x0e, 16,       // CFA = rsp + 16
    0x86, 2,        // rbp at CFA - 16
    0x43,           // advance 3 (after mov %rsp,%rbp)
    0x0d, 6,        // CFA = rbp + 16
    0x02, 0x20,     // advance 0x20 (at the epilogue)
    0x0a,           // remember
    0x0c, 7,    8,  // CFA = rsp + 8 (after leave)
    0x41,           // advance 1 (after ret: another way out)
    0x0b,           // restore: CFA = rbp + 16 again
};

}  // namespace

TEST_CASE("a rule is the row of the instruction before the return address", "[runtime_hook]") {
  EhFrame eh(kFramePointerFunction);
  GIVEN("the return address one byte past the first instruction: the CIE's row") {
    hook::FrameRule r = eh.at(1);
    CHECK(r.kind == Kind::kFrame);
    CHECK_FALSE(r.cfa_from_rbp);
    CHECK(r.cfa_offset == 8);
    CHECK(r.ra_offset == -8);
    CHECK(r.rbp == Rbp::kSame);
  }
  GIVEN("after the push") {
    hook::FrameRule r = eh.at(2);
    CHECK(r.cfa_offset == 16);
    CHECK(r.rbp == Rbp::kSaved);
    CHECK(r.rbp_offset == -16);
  }
  GIVEN("in the body, with a frame pointer") {
    for (uint64_t offset : {5u, 6u, 0x24u}) {
      hook::FrameRule r = eh.at(offset);
      CHECK(r.cfa_from_rbp);
      CHECK(r.cfa_offset == 16);
      CHECK(r.ra_offset == -8);
    }
  }
  GIVEN("after the epilogue's leave, and after the remembered row comes back") {
    CHECK_FALSE(eh.at(0x25).cfa_from_rbp);
    CHECK(eh.at(0x25).cfa_offset == 8);
    CHECK(eh.at(0x25).rbp == Rbp::kSaved);
    CHECK(eh.at(0x26).cfa_from_rbp);
    CHECK(eh.at(0x26).cfa_offset == 16);
  }
  GIVEN("addresses no entry covers") {
    CHECK(eh.at(0).kind == Kind::kNone);  // below the first entry
    CHECK(eh.at(EhFrame::kRange + 1).kind == Kind::kNone);
  }
}

TEST_CASE("rules the walk does not follow are unsupported, and an undefined RA ends the stack",
          "[runtime_hook]") {
  CHECK(EhFrame({0x07, 16}).at(1).kind == Kind::kOutermost);         // DW_CFA_undefined RA
  CHECK(EhFrame({0x0f, 1, 0x77}).at(1).kind == Kind::kUnsupported);  // CFA expression
  CHECK(EhFrame({0x0c, 10, 0}).at(1).kind == Kind::kUnsupported);    // CFA = r10
  CHECK(EhFrame({0x09, 16, 3}).at(1).kind == Kind::kUnsupported);    // RA in a register
  CHECK(EhFrame({0x09, 6, 3}).at(1).rbp == Rbp::kUnknown);           // rbp in a register
  CHECK(EhFrame({0x3f}).at(1).kind == Kind::kUnsupported);           // an unknown opcode
  CHECK(EhFrame({0x0b}).at(1).kind == Kind::kUnsupported);           // restore, nothing kept
  CHECK(EhFrame({}, "zRS").at(1).kind == Kind::kUnsupported);        // a signal frame
  CHECK(EhFrame({}, "zRX").at(1).kind == Kind::kUnsupported);        // unknown augmentation
  // An instruction past the return address is not run.
  CHECK(EhFrame({0x42, 0x0f, 1, 0x77}).at(2).kind == Kind::kFrame);
}

TEST_CASE("findFrameRule reads this binary's frames and ends at the thread's first",
          "[runtime_hook]") {
  uint64_t frames[256];
  size_t n = hook::unwindWithLibgcc(frames, 256);
  REQUIRE(n >= 3);
  for (size_t i = 0; i + 1 < n; ++i) {
    INFO("frame " << i);
    hook::FrameRule r = hook::findFrameRule(frames[i]);
    CHECK(r.kind == Kind::kFrame);
    CHECK(r.ra_offset == -8);
  }
  CHECK(hook::findFrameRule(frames[n - 1]).kind == Kind::kOutermost);  // _start
  std::thread([] {
    uint64_t f[256];
    size_t m = hook::unwindWithLibgcc(f, 256);
    REQUIRE(m >= 2);
    CHECK(hook::findFrameRule(f[m - 1]).kind == Kind::kOutermost);  // clone
  }).join();
  CHECK(hook::findFrameRule(16).kind == Kind::kUnsupported);  // in no module
}
