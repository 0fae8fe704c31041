// The hook's one CUPTI session: subscribes to CUPTI, turns callbacks and activity buffers into
// trace records, and flushes at exit. Process-wide; created once by InitializeInjection and never
// destroyed (CUPTI's threads may call back while the process exits).
#pragma once

#include <cupti.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <unordered_set>

#include "runtime_hook/config.h"
#include "runtime_hook/correlation_table.h"
#include "runtime_hook/marker_call.h"
#include "runtime_hook/nvtx_markers.h"
#include "runtime_hook/process_info.h"
#include "runtime_hook/stack_table.h"
#include "runtime_hook/trace_output.h"
#include "runtime_hook/vmm_mappings.h"
#include "trace/records.h"

namespace memfloor::hook {

class Session {
 public:
  // Starts tracing this process. On any failure logs one "memfloor: ..." line to stderr and
  // returns null: the host runs on untraced.
  static Session* start();
  static Session* current();  // null before start() succeeded, or in a forked child

  // The markers C API (memfloor_marker_v1): false if not recorded (a bad type, tracing is over).
  bool marker(int type, const char* name, uint64_t id);

  // Makes every record so far durable; final also writes the trailer.
  void flush(bool final);

  // CUPTI entry points (static trampolines in session.cpp forward here).
  void onCallback(CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void* data);
  void onBufferRequested(uint8_t** buffer, size_t* size, size_t* max_records);
  void onBufferCompleted(CUcontext context, uint32_t stream, uint8_t* buffer, size_t valid);

  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

 private:
  Session(Config config, ProcessFacts facts);
  bool subscribe();
  bool openTrace();
  void writeMetadata();
  void onDriverCall(CUpti_CallbackId cbid, const CUpti_CallbackData& data);
  void onVmmCall(CUpti_CallbackId cbid, const CUpti_CallbackData& data);
  void writeMarker(const MarkerCall& call);
  void drainStacks(TraceOutput::Batch& batch);
  // Joins a MEMORY2 record to its driver call (allocation_calls.h); false for a VMM call's
  // duplicate, which is counted and not written.
  bool keepRecord(trace::MemoryEvent& event, bool is_alloc);

  Config config_;
  ProcessFacts facts_;
  std::string path_;
  std::unique_ptr<TraceOutput> output_;
  CUpti_SubscriberHandle subscriber_ = nullptr;
  CorrelationTable calls_;
  StackTable stacks_;
  std::atomic<bool> active_{false};
  std::atomic<uint64_t> suppressed_vmm_{0};  // MEMORY2 records replaced by VMM callbacks

  VmmMappings vmm_;   // its own lock
  NvtxMarkers nvtx_;  // its own lock
  std::unordered_set<uint32_t> devices_written_;
};

}  // namespace memfloor::hook
