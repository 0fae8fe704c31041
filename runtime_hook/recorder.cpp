// Callbacks and activity buffers -> trace records.
#include "runtime_hook/recorder.h"

#include <algorithm>
#include <iterator>

#include "runtime_hook/allocation_calls.h"
#include "runtime_hook/call_stamp.h"
#include "runtime_hook/companion_calls.h"
#include "runtime_hook/translate.h"

namespace memfloor::hook {

namespace {

constexpr size_t kMaxNativeFrames = 512;
constexpr size_t kMaxPythonFrames = 256;
constexpr size_t kNativeSkipAllowance = 8;  // hook, CUPTI and driver frames dropped from the top

// The calling thread's module stack (setModuleStack): a thread runs one module's forward at a
// time, and the autograd engine's threads one node's backward.
thread_local trace::StackId t_module_stack = trace::kNoId;

}  // namespace

Recorder::Recorder(const Config& config, TraceOutput& output, std::unique_ptr<PythonFrames> python)
    : python_(std::move(python)),
      native_(nativeFramesFor(config.stacks, python_ != nullptr)),
      unwinder_(native_ != NativeFrames::kNone ? std::make_unique<NativeUnwinder>() : nullptr),
      max_stack_depth_(config.max_stack_depth),
      output_(output),
      stacks_({"libmemfloor_hook", "libcupti", "libcuda.so"}) {}

const char* Recorder::stackSources() const {
  const bool native = native_ != NativeFrames::kNone;
  if (python_ == nullptr) return native ? "native" : "none";
  if (native_ == NativeFrames::kAllButStreamOrdered) return "python+native-rare";
  return native ? "python+native" : "python";
}

void Recorder::setModuleStack(trace::StackId stack) { t_module_stack = stack; }

trace::StackId Recorder::captureAndIntern(CUpti_CallbackId cbid) {
  return stacks_.concat(captureFrames(cbid), t_module_stack);
}

trace::StackId Recorder::captureFrames(CUpti_CallbackId cbid) {
  PythonFrameRef python[kMaxPythonFrames];
  uint64_t native[kMaxNativeFrames];
  CapturedStack stack;
  if (python_ != nullptr) {
    stack.python = python;
    stack.python_count =
        python_->capture(python, std::min<size_t>(max_stack_depth_, kMaxPythonFrames));
  }
  if (native_ == NativeFrames::kAll ||
      (native_ == NativeFrames::kAllButStreamOrdered && !isStreamOrderedAlloc(cbid))) {
    stack.native = native;
    stack.native_count = unwinder_->capture(
        native, std::min<size_t>(max_stack_depth_ + kNativeSkipAllowance, kMaxNativeFrames));
  }
  if (python_ != nullptr && stack.python_count == 0 && stack.native_count == 0) {
    // A thread without Python frames, most often the autograd engine's: the backward's caller.
    if (trace::StackId backward = backward_stack_.load(std::memory_order_relaxed);
        backward != trace::kNoId) {
      return backward;
    }
  }
  return stacks_.intern(stack, python_.get());
}

void Recorder::drainStacks(TraceOutput::Batch& batch) {
  if (stacks_.hasPending()) stacks_.drain(batch);  // native stacks, or a companion's
}

void Recorder::onDriverCall(CUpti_CallbackId cbid, const CUpti_CallbackData& data) {
  if (std::find(std::begin(kVmmCalls), std::end(kVmmCalls), cbid) != std::end(kVmmCalls)) {
    onVmmCall(cbid, data);
    return;
  }
  CallInfo call;
  if (data.callbackSite != CUPTI_API_ENTER ||
      !allocationCallInfo(cbid, data.functionParams, call)) {
    return;
  }
  call.thread = osThreadId();
  if ((call.flags & kCallAlloc) != 0) call.stack = captureAndIntern(cbid);
  calls_.put(data.correlationId, call);
}

void Recorder::onVmmCall(CUpti_CallbackId cbid, const CUpti_CallbackData& data) {
  if (data.callbackSite == CUPTI_API_ENTER) {
    // A MEMORY2 record of this call (if CUPTI makes one) duplicates what we write at its exit.
    CallInfo call;
    if (!vmmCallInfo(cbid, data.functionParams, call)) return;
    call.thread = osThreadId();
    calls_.put(data.correlationId, call);
    return;
  }
  const auto* result = static_cast<const CUresult*>(data.functionReturnValue);
  if (result == nullptr || *result != CUDA_SUCCESS || data.functionParams == nullptr) return;
  VmmRecord record = vmm_.onSuccess(cbid, data.functionParams,
                                    CallStamp{cuptiNow(), osThreadId(), data.correlationId});
  if (auto* alloc = std::get_if<trace::Alloc>(&record)) {
    if (capturesStacks()) alloc->stack = captureAndIntern(cbid);
    TraceOutput::Batch batch(output_);
    drainStacks(batch);
    batch.write(*alloc);
  } else if (auto* free = std::get_if<trace::Free>(&record)) {
    output_.write(*free);
  }
}

void Recorder::onNvtx(CUpti_CallbackId cbid, const CUpti_NvtxData& data) {
  MarkerCall call;
  if (nvtx_.decode(cbid, data, call)) writeMarker(call);
}

void Recorder::writeMarker(const MarkerCall& call) {
  trace::Marker marker;
  marker.timestamp = cuptiNow();
  marker.thread = osThreadId();
  marker.id = call.id;
  marker.type = call.type;
  TraceOutput::Batch batch(output_);
  marker.name = batch.intern(call.name);
  marker.domain = batch.intern(call.domain);
  batch.write(marker);
}

trace::StackId Recorder::internPythonStack(const memfloor_python_frame_v1* frames, uint32_t count) {
  std::vector<StackTable::PythonFrame> converted = pythonFrames(frames, count);
  return stacks_.internPython(converted.data(), converted.size());
}

uint64_t Recorder::writeBlocks(const memfloor_block_event_v1* events, uint64_t count) {
  if (events == nullptr) return 0;
  ClockPair now = clockPairNow();
  TraceOutput::Batch batch(output_);
  drainStacks(batch);
  uint64_t written = 0;
  for (uint64_t i = 0; i < count; ++i) {
    std::optional<trace::Record> record = blockRecord(events[i], now);
    if (record && batch.write(*record)) ++written;
  }
  batch.flush();  // one call, one chunk: a companion reports between iterations, in batches
  return written;
}

uint64_t Recorder::writeCensus(const memfloor_census_header_v1* census,
                               const memfloor_held_v1* held, uint64_t count) {
  if (census == nullptr || (held == nullptr && count > 0)) return 0;
  const ClockPair now = clockPairNow();
  TraceOutput::Batch batch(output_);
  uint64_t written = batch.write(trace::Record{censusRecord(*census, count, now)}) ? 1 : 0;
  const uint64_t timestamp = toCuptiTime(census->unix_ns, now);
  for (uint64_t i = 0; written > 0 && i < count; ++i) {
    const memfloor_held_v1& h = held[i];
    trace::Held record = heldRecord(h, census->device, timestamp);
    record.path = batch.intern(h.path != nullptr ? h.path : "");
    if (h.via != nullptr && *h.via != '\0') record.via = batch.intern(h.via);
    if (batch.write(trace::Record{record})) ++written;
  }
  batch.flush();
  return written;
}

uint32_t Recorder::writeStep(const memfloor_step_event_v1* step) {
  if (step == nullptr) return 0;
  const std::optional<trace::Step> record = stepRecord(*step, osThreadId(), clockPairNow());
  if (!record) return 0;
  TraceOutput::Batch batch(output_);
  const bool written = batch.write(trace::Record{*record});
  batch.flush();
  return written ? 1 : 0;
}

uint32_t Recorder::writeProperty(std::string_view key, std::string_view value) {
  TraceOutput::Batch batch(output_);
  const bool written =
      batch.write(trace::Record{trace::Property{batch.intern(key), batch.intern(value)}});
  batch.flush();
  return written ? 1 : 0;
}

void Recorder::onBuffer(CUcontext context, uint32_t stream, uint8_t* buffer, size_t valid) {
  auto keep = [this](Join join) {
    if (join != Join::kVmmDuplicate) return true;
    suppressed_vmm_.fetch_add(1, std::memory_order_relaxed);  // written from the VMM callback
    return false;
  };
  TraceOutput::Batch batch(output_);
  drainStacks(batch);
  CUpti_Activity* record = nullptr;
  while (valid > 0 && cuptiActivityGetNextRecord(buffer, valid, &record) == CUPTI_SUCCESS) {
    if (record->kind == CUPTI_ACTIVITY_KIND_DEVICE) {
      const auto& d = reinterpret_cast<const CuptiDeviceRecord&>(*record);
      if (devices_written_.insert(d.id).second) {
        trace::DeviceInfo info{d.id, batch.intern(d.name != nullptr ? d.name : ""),
                               d.globalMemorySize};
        batch.write(trace::Record{info});
      }
      continue;
    }
    Translated t = translate(*record);
    if (auto* alloc = std::get_if<trace::Alloc>(&t)) {
      if (keep(joinCall(calls_, *alloc, true))) batch.write(*alloc);
    } else if (auto* free = std::get_if<trace::Free>(&t)) {
      if (keep(joinCall(calls_, *free, false))) batch.write(*free);
    } else if (auto* pool = std::get_if<trace::PoolEvent>(&t)) {
      batch.write(*pool);
    }
  }
  size_t dropped = 0;
  if (cuptiActivityGetNumDroppedRecords(context, stream, &dropped) == CUPTI_SUCCESS &&
      dropped > 0) {
    batch.write(trace::Record{trace::Dropped{trace::DropSource::kCupti, dropped}});
  }
  batch.flush();  // every delivered buffer becomes a complete chunk: SIGKILL keeps it
}

}  // namespace memfloor::hook
