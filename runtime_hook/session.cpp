// The hook's CUPTI session: subscription, callback dispatch, flushing, fork and exit.
#include "runtime_hook/session.h"

#include <pthread.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iterator>

#include "common/version.h"
#include "runtime_hook/allocation_calls.h"
#include "runtime_hook/call_stamp.h"
#include "runtime_hook/exit_flush.h"
#include "runtime_hook/marker_call.h"
#include "runtime_hook/vmm_mappings.h"

namespace memfloor::hook {

namespace {

constexpr mode_t kDirMode = 0755;

constexpr const char* kHookVersion = "1";

std::atomic<Session*> g_session{nullptr};  // the one session; never freed
std::atomic<bool> g_forked_child{false};

const char* getEnv(const char* name, void*) { return std::getenv(name); }

std::string resultName(CUptiResult result) {
  const char* text = nullptr;
  if (cuptiGetResultString(result, &text) != CUPTI_SUCCESS || text == nullptr) {
    return "CUPTI error " + std::to_string(static_cast<int>(result));
  }
  return text;
}

// Every CUPTI call goes through here: one stderr line naming the call and the result.
bool check(CUptiResult result, const char* call, const char* consequence) {
  if (result == CUPTI_SUCCESS) return true;
  std::fprintf(stderr, "memfloor: %s failed: %s; %s\n", call, resultName(result).c_str(),
               consequence);
  return false;
}

constexpr const char* kUntraced = "this process runs on untraced";

void CUPTIAPI callbackTrampoline(void* userdata, CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
                                 const void* data) {
  if (g_forked_child.load(std::memory_order_relaxed)) return;
  static_cast<Session*>(userdata)->onCallback(domain, cbid, data);
}

void CUPTIAPI bufferRequestedTrampoline(uint8_t** buffer, size_t* size, size_t* max_records) {
  Session* session = g_session.load(std::memory_order_acquire);
  if (session != nullptr) {
    session->onBufferRequested(buffer, size, max_records);
  } else {
    *buffer = nullptr;
    *size = 0;
    *max_records = 0;
  }
}

void CUPTIAPI bufferCompletedTrampoline(CUcontext context, uint32_t stream, uint8_t* buffer,
                                        size_t size, size_t valid) {
  (void)size;
  Session* session = g_session.load(std::memory_order_acquire);
  if (session != nullptr && !g_forked_child.load(std::memory_order_relaxed)) {
    session->onBufferCompleted(context, stream, buffer, valid);
  }
  std::free(buffer);
}

void flushTrampoline(bool final, void* context) { static_cast<Session*>(context)->flush(final); }

// Context teardown (cudaDeviceReset and the driver calls under it): CUPTI does not hand over a
// context's buffered records when the context goes (seen on the H200 with CUDA 13: a SIGKILL
// after cudaDeviceReset left none of them), so they are flushed on entry, while it still exists.
constexpr CUpti_CallbackId kTeardownCalls[] = {
    CUPTI_DRIVER_TRACE_CBID_cuDevicePrimaryCtxReset,
    CUPTI_DRIVER_TRACE_CBID_cuDevicePrimaryCtxReset_v2,
    CUPTI_DRIVER_TRACE_CBID_cuCtxDestroy,
    CUPTI_DRIVER_TRACE_CBID_cuCtxDestroy_v2,
};

bool isTeardownCall(CUpti_CallbackId cbid) {
  return std::find(std::begin(kTeardownCalls), std::end(kTeardownCalls), cbid) !=
         std::end(kTeardownCalls);
}

template <size_t N>
void enableDriverCallbacks(CUpti_SubscriberHandle subscriber, const CUpti_CallbackId (&ids)[N],
                           const char* call, const char* consequence) {
  for (CUpti_CallbackId id : ids) {
    check(cuptiEnableCallback(1, subscriber, CUPTI_CB_DOMAIN_DRIVER_API, id), call, consequence);
  }
}

void onForkChild() {
  g_forked_child.store(true, std::memory_order_relaxed);
  disableExitFlush();
}

}  // namespace

Session* Session::current() {
  if (g_forked_child.load(std::memory_order_relaxed)) return nullptr;
  return g_session.load(std::memory_order_acquire);
}

Session::Session(Config config, ProcessFacts facts)
    : config_(std::move(config)), facts_(std::move(facts)) {}

Session* Session::start() {
  if (g_session.load() != nullptr) return g_session.load();
  std::string warnings;
  Config config = readConfig(getEnv, nullptr, warnings);
  if (!warnings.empty()) std::fprintf(stderr, "%s\n", warnings.c_str());
  // Leaked on purpose: CUPTI may call back from its own threads until the process is gone.
  auto* session = new Session(std::move(config), readProcessFacts(getEnv, nullptr));
  if (!session->subscribe()) return nullptr;
  return session;
}

bool Session::openTrace() {
  if (::mkdir(config_.output_dir.c_str(), kDirMode) != 0 && errno != EEXIST) {
    std::fprintf(stderr, "memfloor: cannot create output directory %s: %s; %s\n",
                 config_.output_dir.c_str(), std::strerror(errno), kUntraced);
    return false;
  }
  int fd = createTraceFile(config_.output_dir, facts_, path_);
  if (fd < 0) {
    std::fprintf(stderr, "memfloor: cannot create trace file %s: %s; %s\n", path_.c_str(),
                 std::strerror(errno), kUntraced);
    return false;
  }
  output_ = std::make_unique<TraceOutput>(std::make_unique<trace::FileSink>(fd),
                                          trace::Writer::kDefaultChunkBytes);
  if (!output_->begin()) {
    std::fprintf(stderr, "memfloor: cannot write trace file %s: %s; %s\n", path_.c_str(),
                 std::strerror(errno), kUntraced);
    return false;
  }
  if (config_.verbose) std::fprintf(stderr, "memfloor: tracing to %s\n", path_.c_str());
  return true;
}

// Python frames asked for, or expected in a Python process, but not possible: said once.
void Session::warnWithoutPython(const std::string& python_status) const {
  if (recorder_->capturesPython()) return;
  bool asked = config_.stacks == StackMode::kPython ||
               (config_.stacks != StackMode::kNone && PythonFrames::interpreterPresent());
  if (!asked) return;
  std::fprintf(stderr, "memfloor: allocations have no Python frames: %s; stacks: %s\n",
               python_status.c_str(), recorder_->stackSources());
}

void Session::writeMetadata(const std::string& python_status) {
  TraceOutput::Batch batch(*output_);
  trace::ProcessInfo info;
  info.pid = facts_.pid;
  info.start_unix_ns = wallNow();
  info.host = batch.intern(facts_.host);
  info.command_line = batch.intern(facts_.command_line);
  info.rank = facts_.rank;
  info.local_rank = facts_.local_rank;
  info.world_size = facts_.world_size;
  batch.write(trace::Record{info});
  auto property = [&batch](std::string_view key, std::string_view value) {
    batch.write(trace::Record{trace::Property{batch.intern(key), batch.intern(value)}});
  };
  uint32_t cupti_version = 0;
  cuptiGetVersion(&cupti_version);
  property("hook.version", kHookVersion);
  // Which memfloor recorded the trace (its --version), for a report read long after the run.
  property("hook.memfloor_version", kVersion);
  property("hook.stacks", recorder_->stackSources());
  property("hook.python", python_status);
  property("hook.buffer_size", std::to_string(config_.buffer_bytes));
  // A trace cut by SIGKILL may lack up to one period of memory records: the analysis marks it.
  property("hook.flush_period_ms", std::to_string(config_.flush_period_ms));
  property("hook.cupti_api_version", std::to_string(cupti_version));
  property("hook.start_timestamp", std::to_string(cuptiNow()));
  if (!config_.iteration_pattern.empty()) {
    property("hook.iteration_pattern", config_.iteration_pattern);
  }
  const char* nvtx = std::getenv("NVTX_INJECTION64_PATH");
  property("hook.nvtx_injection", nvtx != nullptr ? nvtx : "unset");
  for (const auto& [key, value] : facts_.env) property(key, value);
  batch.flush();
}

bool Session::subscribe() {
  CUpti_SubscriberParams params;
  std::memset(&params, 0, sizeof params);
  char old_name[CUPTI_OLD_SUBSCRIBER_NAME_MIN_LEN + 64] = {};
  params.structSize = CUpti_SubscriberParams_STRUCT_SIZE;
  params.subscriberName = "memfloor";
  params.oldSubscriberName = old_name;
  params.oldSubscriberSize = sizeof old_name;
  CUptiResult result = cuptiSubscribe_v2(&subscriber_, callbackTrampoline, this, &params);
  if (result == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED) {
    std::fprintf(stderr,
                 "memfloor: another CUPTI tool is attached to this process (%s): "
                 "cuptiSubscribe returned CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED; %s\n",
                 old_name[0] != '\0' ? old_name : "unnamed", kUntraced);
    return false;
  }
  if (!check(result, "cuptiSubscribe", kUntraced)) return false;

  auto fail = [this]() {
    cuptiUnsubscribe(subscriber_);
    subscriber_ = nullptr;
    return false;
  };
  if (!openTrace()) return fail();
  std::string python_status;
  std::unique_ptr<PythonFrames> python;
  if (config_.stacks != StackMode::kNone) python = PythonFrames::find(python_status);
  if (python != nullptr) python_status = python->version();
  recorder_ = std::make_unique<Recorder>(config_, *output_, std::move(python));
  warnWithoutPython(python_status);
  writeMetadata(python_status);
  g_session.store(this, std::memory_order_release);  // buffer callbacks may come from now on

  if (!check(cuptiActivityRegisterCallbacks(bufferRequestedTrampoline, bufferCompletedTrampoline),
             "cuptiActivityRegisterCallbacks", kUntraced) ||
      !check(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MEMORY2), "cuptiActivityEnable(MEMORY2)",
             kUntraced)) {
    g_session.store(nullptr);
    output_->finish(cuptiNow());
    return fail();
  }
  enableCallbacks();
  pthread_atfork(nullptr, nullptr, onForkChild);
  if (!installExitFlush(flushTrampoline, this)) {
    std::fprintf(stderr, "memfloor: cannot install the exit handler; the trace may lack its end\n");
  }
  active_.store(true, std::memory_order_release);
  return true;
}

// Everything past MEMORY2 degrades: a failure is said once and tracing goes on without it.
void Session::enableCallbacks() {
  check(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MEMORY_POOL), "cuptiActivityEnable(MEMORY_POOL)",
        "pool events are not recorded");
  check(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_DEVICE), "cuptiActivityEnable(DEVICE)",
        "device names are not recorded");
  enableDriverCallbacks(subscriber_, kVmmCalls, "cuptiEnableCallback(VMM)",
                        "VMM mappings may be missed");
  enableDriverCallbacks(subscriber_, kTeardownCalls, "cuptiEnableCallback(context teardown)",
                        "records are flushed at exit only");
  check(cuptiEnableCallback(1, subscriber_, CUPTI_CB_DOMAIN_RUNTIME_API,
                            CUPTI_RUNTIME_TRACE_CBID_cudaDeviceReset_v3020),
        "cuptiEnableCallback(cudaDeviceReset)", "records are flushed at exit only");
  if (recorder_->capturesStacks()) {
    enableDriverCallbacks(subscriber_, kAllocCalls, "cuptiEnableCallback(allocation)",
                          "some allocations have no stack");
    enableDriverCallbacks(subscriber_, kFreeCalls, "cuptiEnableCallback(free)",
                          "some frees have no thread");
  }
  check(cuptiEnableDomain(1, subscriber_, CUPTI_CB_DOMAIN_NVTX), "cuptiEnableDomain(NVTX)",
        "NVTX ranges are not recorded");
  if (config_.flush_period_ms > 0) {
    check(cuptiActivityFlushPeriod(config_.flush_period_ms), "cuptiActivityFlushPeriod",
          "records reach the file when buffers fill and at exit");
  }
}

void Session::flush(bool final) {
  if (g_forked_child.load(std::memory_order_relaxed) || output_ == nullptr) return;
  if (output_->finished()) return;
  check(cuptiActivityFlushAll(final ? CUPTI_ACTIVITY_FLAG_FLUSH_FORCED : 0),
        "cuptiActivityFlushAll", "the trace may miss the last records");
  if (!final) {
    output_->flush();
    return;
  }
  active_.store(false, std::memory_order_release);
  auto property = [this](const char* key, uint64_t value) {
    output_->write(trace::Record{
        trace::Property{output_->intern(key), output_->intern(std::to_string(value))}});
  };
  if (uint64_t suppressed = recorder_->suppressedVmm(); suppressed > 0) {
    property("hook.vmm_memory2_suppressed", suppressed);
  }
  // How often the cached walk of native frames handed a stack to libgcc: the benchmark's witness
  // that the fast path was the one measured.
  if (uint64_t fallbacks = recorder_->unwindFallbacks(); fallbacks > 0) {
    property("hook.native_unwind_fallbacks", fallbacks);
  }
  uint64_t dropped = output_->droppedCount();
  if (!output_->finish(cuptiNow())) {
    std::fprintf(stderr, "memfloor: the trace %s could not be completed\n", path_.c_str());
  } else if (dropped > 0) {
    std::fprintf(stderr, "memfloor: %llu records could not be written to %s\n",
                 static_cast<unsigned long long>(dropped), path_.c_str());
  }
}

void Session::onBufferRequested(uint8_t** buffer, size_t* size, size_t* max_records) {
  *max_records = 0;  // as many as fit
  *size = config_.buffer_bytes;
  *buffer = static_cast<uint8_t*>(std::aligned_alloc(8, config_.buffer_bytes));
  if (*buffer == nullptr) *size = 0;  // CUPTI counts the records it drops for want of a buffer
}

void Session::onBufferCompleted(CUcontext context, uint32_t stream, uint8_t* buffer, size_t valid) {
  if (recorder_ != nullptr) recorder_->onBuffer(context, stream, buffer, valid);
}

void Session::onCallback(CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void* data) {
  if (!active_.load(std::memory_order_acquire) || data == nullptr) return;
  if (domain == CUPTI_CB_DOMAIN_DRIVER_API) {
    const auto& call = *static_cast<const CUpti_CallbackData*>(data);
    if (!isTeardownCall(cbid)) {
      recorder_->onDriverCall(cbid, call);
    } else if (call.callbackSite == CUPTI_API_ENTER) {
      flush(false);
    }
  } else if (domain == CUPTI_CB_DOMAIN_NVTX) {
    recorder_->onNvtx(cbid, *static_cast<const CUpti_NvtxData*>(data));
  } else if (domain == CUPTI_CB_DOMAIN_RUNTIME_API &&
             cbid == CUPTI_RUNTIME_TRACE_CBID_cudaDeviceReset_v3020 &&
             static_cast<const CUpti_CallbackData*>(data)->callbackSite == CUPTI_API_ENTER) {
    flush(false);
  }
}

bool Session::marker(int type, const char* name, uint64_t id) {
  if (!tracing()) return false;
  MarkerCall call;
  if (!apiMarkerCall(type, name, id, call)) return false;
  recorder_->writeMarker(call);
  return true;
}

bool Session::tracing() const {
  return active_.load(std::memory_order_acquire) && !g_forked_child.load();
}

uint32_t Session::pythonStack(const memfloor_python_frame_v1* frames, uint32_t count) {
  return tracing() ? recorder_->internPythonStack(frames, count) : trace::kNoId;
}

uint64_t Session::blocks(const memfloor_block_event_v1* events, uint64_t count) {
  return tracing() ? recorder_->writeBlocks(events, count) : 0;
}

uint32_t Session::step(const memfloor_step_event_v1* step) {
  return tracing() ? recorder_->writeStep(step) : 0;
}

uint32_t Session::backwardStack(uint32_t stack) {
  if (!tracing()) return 0;
  recorder_->setBackwardStack(stack);
  return 1;
}

uint32_t Session::moduleStack(uint32_t stack) {
  if (!tracing()) return 0;
  Recorder::setModuleStack(stack);
  return 1;
}

uint32_t Session::property(const char* key, const char* value) {
  if (!tracing() || key == nullptr || value == nullptr || *key == '\0' || *value == '\0') return 0;
  return recorder_->writeProperty(key, value);
}

uint64_t Session::census(const memfloor_census_header_v1* census, const memfloor_held_v1* held,
                         uint64_t count) {
  return tracing() ? recorder_->writeCensus(census, held, count) : 0;
}

}  // namespace memfloor::hook
