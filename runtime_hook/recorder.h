// What CUPTI hands the session, as trace records: driver callbacks of allocations, frees and VMM
// calls, NVTX callbacks, the C API's markers and completed activity buffers. Owns the state they
// need, each part with its own lock; the session decides when tracing is on.
#pragma once

#include <cupti.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <string_view>
#include <unordered_set>

#include "include/memfloor/companion.h"
#include "runtime_hook/config.h"
#include "runtime_hook/correlation_table.h"
#include "runtime_hook/marker_call.h"
#include "runtime_hook/native_unwinder.h"
#include "runtime_hook/nvtx_markers.h"
#include "runtime_hook/python_frames.h"
#include "runtime_hook/stack_table.h"
#include "runtime_hook/trace_output.h"
#include "runtime_hook/vmm_mappings.h"

namespace memfloor::hook {

class Recorder {
 public:
  // Writes into output, which outlives it. Allocation stacks hold python's frames where it is
  // set (the session finds it unless stacks are kNone), and native frames where config asks for
  // them (nativeFramesFor).
  Recorder(const Config& config, TraceOutput& output,
           std::unique_ptr<PythonFrames> python = nullptr);
  Recorder(const Recorder&) = delete;
  Recorder& operator=(const Recorder&) = delete;

  // A driver-API callback of an allocation, free or VMM call (kAllocCalls, kFreeCalls, kVmmCalls).
  void onDriverCall(CUpti_CallbackId cbid, const CUpti_CallbackData& data);
  void onNvtx(CUpti_CallbackId cbid, const CUpti_NvtxData& data);
  void writeMarker(const MarkerCall& call);
  // The companion's entry points: a stack of Python frames, and block allocations and frees.
  trace::StackId internPythonStack(const memfloor_python_frame_v1* frames, uint32_t count);
  uint64_t writeBlocks(const memfloor_block_event_v1* events, uint64_t count);
  // The stack of the backward call now running (0: none), which an allocation without frames in
  // a Python process takes: the autograd engine's threads run no Python (companion.h).
  void setBackwardStack(trace::StackId stack) {
    backward_stack_.store(stack, std::memory_order_relaxed);
  }
  // The stack of the module whose forward runs on the calling thread (0: none), which every
  // allocation the thread makes takes as its outermost frames (companion.h).
  static void setModuleStack(trace::StackId stack);
  // One end of a training step, on the calling thread: 1 record written in one chunk, or 0.
  uint32_t writeStep(const memfloor_step_event_v1* step);
  // A property the companion learned (memfloor_property_v1); 1 when written.
  uint32_t writeProperty(std::string_view key, std::string_view value);
  // A census and its storages: count + 1 records written in one chunk, or 0.
  uint64_t writeCensus(const memfloor_census_header_v1* census, const memfloor_held_v1* held,
                       uint64_t count);
  // One completed CUPTI activity buffer: written as one complete chunk.
  void onBuffer(CUcontext context, uint32_t stream, uint8_t* buffer, size_t valid);

  // Whether allocations get stacks: the allocation and free callbacks are needed.
  bool capturesStacks() const { return native_ != NativeFrames::kNone || python_ != nullptr; }
  bool capturesPython() const { return python_ != nullptr; }
  // "python", "native", "python+native", "python+native-rare" (native frames but for
  // stream-ordered allocations) or "none".
  const char* stackSources() const;

  // MEMORY2 records dropped because a VMM callback had written them already.
  uint64_t suppressedVmm() const { return suppressed_vmm_.load(std::memory_order_relaxed); }
  // Native stacks that libgcc's unwinder took instead of the cached walk (native_unwinder.h).
  uint64_t unwindFallbacks() const { return unwinder_ ? unwinder_->fallbacks() : 0; }

 private:
  void onVmmCall(CUpti_CallbackId cbid, const CUpti_CallbackData& data);
  void drainStacks(TraceOutput::Batch& batch);
  // The calling thread's stack, as configured for the call, with its module's frames outermost.
  trace::StackId captureAndIntern(CUpti_CallbackId cbid);
  trace::StackId captureFrames(CUpti_CallbackId cbid);  // without the module's

  std::unique_ptr<PythonFrames> python_;
  NativeFrames native_;
  std::unique_ptr<NativeUnwinder> unwinder_;  // unless native_ is kNone
  uint32_t max_stack_depth_;
  TraceOutput& output_;
  // Lock order: the one nesting is the output's lock (a TraceOutput::Batch) held while the stack
  // table drains into it, so stacks are captured and interned before a batch is taken. The VMM and
  // NVTX locks are held for a lookup only, never with another; the correlation table has none.
  CorrelationTable calls_;
  StackTable stacks_;
  VmmMappings vmm_;
  NvtxMarkers nvtx_;
  std::atomic<uint64_t> suppressed_vmm_{0};
  std::atomic<trace::StackId> backward_stack_{trace::kNoId};
  std::unordered_set<uint32_t> devices_written_;  // under the output's lock (a Batch)
};

}  // namespace memfloor::hook
