// The cached walk of native frames, and libgcc's unwinder as its reference and fallback.
#include "runtime_hook/native_unwinder.h"

#include <unwind.h>

#include "runtime_hook/frame_rule.h"

namespace memfloor::hook {

namespace {

constexpr uint64_t kGoldenRatio64 = 0x9e3779b97f4a7c15ull;  // 2^64 / phi: Fibonacci hashing

// A frame address more than this above the capture's own stack pointer is taken for garbage
// (a rule gone stale with its module, say) rather than followed: libgcc unwinds that stack.
constexpr uint64_t kMaxStackBytes = uint64_t{512} << 20;

struct UnwindState {
  uint64_t* frames;
  size_t max;
  size_t skip;
  size_t count;
};

_Unwind_Reason_Code unwindStep(struct _Unwind_Context* context, void* arg) {
  auto* state = static_cast<UnwindState*>(arg);
  uint64_t ip = _Unwind_GetIP(context);
  if (ip == 0) return _URC_END_OF_STACK;
  if (state->skip > 0) {
    --state->skip;
    return _URC_NO_REASON;
  }
  if (state->count >= state->max) return _URC_END_OF_STACK;
  state->frames[state->count++] = ip;
  return _URC_NO_REASON;
}

// A FrameRule in one word, so that a cache slot holds it atomically:
//   bits 0-1 kind, 2 CFA from rbp, 3-4 rbp rule, 5-36 CFA offset (unsigned),
//   37-50 return address offset + 2^13, 51-63 rbp offset + 2^12.
// A rule whose offsets do not fit is kept as unsupported.
constexpr unsigned kCfaFromRbpShift = 2;
constexpr unsigned kRbpRuleShift = 3;
constexpr unsigned kCfaShift = 5;
constexpr unsigned kRaShift = 37;
constexpr unsigned kRbpShift = 51;
constexpr uint64_t kCfaMask = (uint64_t{1} << (kRaShift - kCfaShift)) - 1;
constexpr uint64_t kRaBias = uint64_t{1} << 13;
constexpr uint64_t kRbpBias = uint64_t{1} << 12;

uint64_t pack(const FrameRule& r) {
  auto kind = static_cast<uint64_t>(r.kind);
  if (r.kind != FrameRule::Kind::kFrame) return kind;
  auto fits = [](int64_t v, uint64_t bias) {
    return v >= -static_cast<int64_t>(bias) && v < static_cast<int64_t>(bias);
  };
  if (r.cfa_offset < 0 || static_cast<uint64_t>(r.cfa_offset) > kCfaMask ||
      !fits(r.ra_offset, kRaBias) || !fits(r.rbp_offset, kRbpBias)) {
    return static_cast<uint64_t>(FrameRule::Kind::kUnsupported);
  }
  return kind | uint64_t{r.cfa_from_rbp} << kCfaFromRbpShift |
         static_cast<uint64_t>(r.rbp) << kRbpRuleShift |
         static_cast<uint64_t>(r.cfa_offset) << kCfaShift |
         (static_cast<uint64_t>(r.ra_offset) + kRaBias) << kRaShift |
         (static_cast<uint64_t>(r.rbp_offset) + kRbpBias) << kRbpShift;
}

FrameRule unpack(uint64_t w) {
  FrameRule r;
  r.kind = static_cast<FrameRule::Kind>(w & 3);
  r.cfa_from_rbp = ((w >> kCfaFromRbpShift) & 1) != 0;
  r.rbp = static_cast<FrameRule::Rbp>((w >> kRbpRuleShift) & 3);
  r.cfa_offset = static_cast<int64_t>((w >> kCfaShift) & kCfaMask);
  r.ra_offset =
      static_cast<int64_t>((w >> kRaShift) & (2 * kRaBias - 1)) - static_cast<int64_t>(kRaBias);
  r.rbp_offset = static_cast<int64_t>(w >> kRbpShift) - static_cast<int64_t>(kRbpBias);
  return r;
}

uint64_t load(uint64_t address) { return *reinterpret_cast<const uint64_t*>(address); }

}  // namespace

__attribute__((noinline)) size_t unwindWithLibgcc(uint64_t* frames, size_t max, size_t skip) {
  UnwindState state{frames, max, skip, 0};
  _Unwind_Backtrace(unwindStep, &state);
  return state.count;
}

NativeUnwinder::NativeUnwinder() : slots_(std::make_unique<Slot[]>(size_t{1} << kSlotBits)) {}

bool NativeUnwinder::lookup(uint64_t address, uint64_t& packed) const {
  const Slot& slot = slots_[(address * kGoldenRatio64) >> (64 - kSlotBits)];
  uint32_t before = slot.sequence.load(std::memory_order_acquire);
  if ((before & 1) != 0) return false;
  uint64_t key = slot.address.load(std::memory_order_relaxed);
  uint64_t value = slot.rule.load(std::memory_order_relaxed);
  std::atomic_thread_fence(std::memory_order_acquire);
  if (slot.sequence.load(std::memory_order_relaxed) != before || key != address) return false;
  packed = value;
  return true;
}

void NativeUnwinder::store(uint64_t address, uint64_t packed) {
  Slot& slot = slots_[(address * kGoldenRatio64) >> (64 - kSlotBits)];
  uint32_t before = slot.sequence.load(std::memory_order_relaxed);
  if ((before & 1) != 0 ||
      !slot.sequence.compare_exchange_strong(before, before + 1, std::memory_order_relaxed)) {
    return;  // another thread is writing it: this rule is read again next time
  }
  std::atomic_thread_fence(std::memory_order_release);
  slot.address.store(address, std::memory_order_relaxed);
  slot.rule.store(packed, std::memory_order_relaxed);
  slot.sequence.store(before + 2, std::memory_order_release);
}

uint64_t NativeUnwinder::rule(uint64_t address) {
  uint64_t packed = 0;
  if (lookup(address, packed)) return packed;
  packed = pack(findFrameRule(address));
  store(address, packed);
  return packed;
}

__attribute__((noinline)) size_t NativeUnwinder::capture(uint64_t* frames, size_t max) {
  if (max == 0) return 0;
#if defined(__x86_64__)
  // This function's own frame, as the rules of its unwind entry describe it at the lea.
  uint64_t ip = 0;
  uint64_t sp = 0;
  uint64_t bp = 0;
  asm volatile("lea 0(%%rip), %0\n\tmov %%rsp, %1\n\tmov %%rbp, %2" : "=r"(ip), "=r"(sp), "=r"(bp));
  const uint64_t stack_low = sp;
  bool bp_known = true;
  bool followed = true;
  size_t n = 0;
  // Stops where libgcc stops: a zero return address, a frame without an unwind entry, an
  // undefined return address.
  while (n < max && ip != 0) {
    frames[n++] = ip;
    if (n == max) break;
    const FrameRule r = unpack(rule(ip));
    if (r.kind == FrameRule::Kind::kNone || r.kind == FrameRule::Kind::kOutermost) break;
    if (r.kind != FrameRule::Kind::kFrame || (r.cfa_from_rbp && !bp_known)) {
      followed = false;
      break;
    }
    const uint64_t cfa = (r.cfa_from_rbp ? bp : sp) + static_cast<uint64_t>(r.cfa_offset);
    if (cfa <= sp || cfa - stack_low > kMaxStackBytes) {
      followed = false;
      break;
    }
    ip = load(cfa + static_cast<uint64_t>(r.ra_offset));
    if (r.rbp == FrameRule::Rbp::kSaved) {
      bp = load(cfa + static_cast<uint64_t>(r.rbp_offset));
    } else if (r.rbp == FrameRule::Rbp::kUnknown) {
      bp_known = false;
    }
    sp = cfa;
  }
  if (followed) return n;
#endif
  // One frame skipped (unwindWithLibgcc's own), so frames[0] lies in this function here too.
  size_t count = unwindWithLibgcc(frames, max, 1);
  fallbacks_.fetch_add(1, std::memory_order_relaxed);
  return count;
}

}  // namespace memfloor::hook
