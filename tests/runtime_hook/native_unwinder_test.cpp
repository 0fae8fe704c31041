// The cached walk of native frames against libgcc's unwinder: the same return addresses for the
// same call, through frames of several shapes, from other threads, from a callback of a shared
// library (libc's qsort), and through frames the walk hands to libgcc.
#include "runtime_hook/native_unwinder.h"

#include <alloca.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <thread>
#include <vector>

using namespace memfloor;

namespace {

constexpr size_t kMax = 256;

struct Both {
  std::vector<uint64_t> walk, libgcc;
};

// Both captures from one frame: frames[0] lies in each capture function and frames[1] at the two
// call sites below; from frames[2] on the two must agree.
__attribute__((noinline)) Both bothHere(hook::NativeUnwinder& unwinder) {
  uint64_t a[kMax];
  uint64_t b[kMax];
  size_t na = unwinder.capture(a, kMax);
  size_t nb = hook::unwindWithLibgcc(b, kMax);
  asm volatile("" ::: "memory");  // keep the calls where they are, and no tail call
  return Both{{a, a + na}, {b, b + nb}};
}

void requireSameFrames(const Both& both) {
  REQUIRE(both.walk.size() >= 3);
  REQUIRE(both.walk.size() == both.libgcc.size());
  const auto here = reinterpret_cast<uint64_t>(&bothHere);
  CHECK(both.walk[1] > here);  // both call sites lie in bothHere
  CHECK(both.libgcc[1] > here);
  CHECK(both.walk[1] - here < 4096);
  CHECK(both.libgcc[1] - here < 4096);
  for (size_t i = 2; i < both.walk.size(); ++i) {
    INFO("frame " << i);
    CHECK(both.walk[i] == both.libgcc[i]);
  }
}

// Frames of different shapes between the test and the capture: plain recursion (rsp-based
// CFA), a variable-length array (rbp-based CFA) and a big frame.
__attribute__((noinline)) Both nested(hook::NativeUnwinder& unwinder, int depth);

__attribute__((noinline)) Both withVariableArray(hook::NativeUnwinder& unwinder, int depth) {
  auto* buffer = static_cast<volatile char*>(alloca(static_cast<size_t>(64 + depth * 16)));
  buffer[0] = 1;
  Both both = nested(unwinder, depth - 1);
  asm volatile("" ::: "memory");
  return both;
}

__attribute__((noinline)) Both withBigFrame(hook::NativeUnwinder& unwinder, int depth) {
  volatile char buffer[70000];
  buffer[0] = 1;
  Both both = nested(unwinder, depth - 1);
  asm volatile("" : : "r"(buffer) : "memory");  // the big frame lives until after the call
  return both;
}

Both nested(hook::NativeUnwinder& unwinder, int depth) {
  if (depth <= 0) return bothHere(unwinder);
  Both both = depth % 3 == 0   ? withVariableArray(unwinder, depth)
              : depth % 3 == 1 ? withBigFrame(unwinder, depth)
                               : nested(unwinder, depth - 1);
  asm volatile("" ::: "memory");
  return both;
}

// A comparator called from inside libc: the stack runs through libc.so's frames.
hook::NativeUnwinder* g_unwinder = nullptr;
Both* g_from_qsort = nullptr;

int compareAndCapture(const void* a, const void* b) {
  if (g_from_qsort->walk.empty()) *g_from_qsort = nested(*g_unwinder, 4);
  return *static_cast<const int*>(a) - *static_cast<const int*>(b);
}

#if defined(__x86_64__)
// Two frames written by hand, each calling fn(arg): one whose CFA is rbx + 16 (a register the walk
// does not follow, as realigned frames use; libgcc does), and one without unwind information
// (where libgcc's stacks end).
asm(R"(
  .text
  .p2align 4
  .type memfloor_test_rbx_frame, @function
memfloor_test_rbx_frame:
  .cfi_startproc
  push %rbx
  .cfi_def_cfa_offset 16
  .cfi_offset %rbx, -16
  mov %rsp, %rbx
  .cfi_def_cfa_register %rbx
  call *%rsi
  pop %rbx
  .cfi_def_cfa %rsp, 8
  ret
  .cfi_endproc
  .size memfloor_test_rbx_frame, .-memfloor_test_rbx_frame

  .p2align 4
  .type memfloor_test_no_unwind_info, @function
memfloor_test_no_unwind_info:
  sub $8, %rsp
  call *%rsi
  add $8, %rsp
  ret
  .size memfloor_test_no_unwind_info, .-memfloor_test_no_unwind_info
)");
extern "C" void memfloor_test_rbx_frame(void* arg, void (*fn)(void*));
extern "C" void memfloor_test_no_unwind_info(void* arg, void (*fn)(void*));

struct Call {
  hook::NativeUnwinder* unwinder;
  Both both;
};

void captureInto(void* arg) {
  auto* call = static_cast<Call*>(arg);
  call->both = nested(*call->unwinder, 2);
}

// Both captures from below one of the hand-written frames.
Both through(void (*frame)(void*, void (*)(void*)), hook::NativeUnwinder& unwinder) {
  Call call{&unwinder, {}};
  frame(&call, captureInto);
  return call.both;
}
#endif

}  // namespace

TEST_CASE("the cached walk finds libgcc's frames through frames of several shapes",
          "[runtime_hook]") {
  hook::NativeUnwinder unwinder;
  for (int depth : {0, 1, 2, 5, 12}) {
    INFO("depth " << depth);
    requireSameFrames(nested(unwinder, depth));
  }
  // Again, from the cache: the same frames, and no stack was libgcc's.
  requireSameFrames(nested(unwinder, 12));
  CHECK(unwinder.fallbacks() == 0);
}

TEST_CASE("the cached walk finds libgcc's frames through a shared library's callback",
          "[runtime_hook]") {
  hook::NativeUnwinder unwinder;
  Both both;
  g_unwinder = &unwinder;
  g_from_qsort = &both;
  std::vector<int> values{5, 3, 9, 1, 7, 2, 8, 4, 6, 0};
  std::qsort(values.data(), values.size(), sizeof(int), compareAndCapture);
  requireSameFrames(both);
  CHECK(values.front() == 0);
  CHECK(unwinder.fallbacks() == 0);
}

TEST_CASE("the cached walk finds libgcc's frames in threads sharing one cache", "[runtime_hook]") {
  hook::NativeUnwinder unwinder;
  constexpr int kThreads = 4;
  std::vector<std::vector<Both>> results(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&unwinder, &results, t] {
      for (int i = 0; i < 200; ++i) results[t].push_back(nested(unwinder, 3 + t));
    });
  }
  for (std::thread& thread : threads) thread.join();
  for (int t = 0; t < kThreads; ++t) {
    requireSameFrames(results[t].front());
    for (const Both& both : results[t]) REQUIRE(both.walk == results[t].front().walk);
  }
  CHECK(unwinder.fallbacks() == 0);
}

#if defined(__x86_64__)
TEST_CASE("a stack through a frame the walk does not follow is libgcc's, frame for frame",
          "[runtime_hook]") {
  hook::NativeUnwinder unwinder;
  requireSameFrames(through(memfloor_test_rbx_frame, unwinder));
  CHECK(unwinder.fallbacks() == 1);
}

TEST_CASE("a stack ends, as libgcc's does, at a frame without unwind information",
          "[runtime_hook]") {
  hook::NativeUnwinder unwinder;
  Both both = through(memfloor_test_no_unwind_info, unwinder);
  requireSameFrames(both);
  CHECK(both.walk.size() <= 8);  // nested(2), captureInto, through and the frame without it
  CHECK(unwinder.fallbacks() == 0);
}
#endif

TEST_CASE("a capture stops at max frames", "[runtime_hook]") {
  hook::NativeUnwinder unwinder;
  uint64_t frames[3] = {0, 0, 0};
  CHECK(unwinder.capture(frames, 0) == 0);
  CHECK(unwinder.capture(frames, 2) == 2);
  CHECK(frames[2] == 0);
  CHECK(unwinder.fallbacks() == 0);
}
