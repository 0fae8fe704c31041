// The hook's one CUPTI session: subscribes to CUPTI, hands callbacks and activity buffers to its
// recorder, and flushes at exit. Process-wide; created once by InitializeInjection and never
// destroyed (CUPTI's threads may call back while the process exits).
#pragma once

#include <cupti.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>

#include "runtime_hook/config.h"
#include "runtime_hook/process_info.h"
#include "runtime_hook/recorder.h"
#include "runtime_hook/trace_output.h"

namespace memfloor::hook {

class Session {
 public:
  // Starts tracing this process. On any failure logs one "memfloor: ..." line to stderr and
  // returns null: the host runs on untraced.
  static Session* start();
  static Session* current();  // null before start() succeeded, or in a forked child

  // The markers C API (memfloor_marker_v1): false if not recorded (a bad type, tracing is over).
  bool marker(int type, const char* name, uint64_t id);

  // The companion API (include/memfloor/companion.h): 0 when tracing is off.
  uint32_t pythonStack(const memfloor_python_frame_v1* frames, uint32_t count);
  uint64_t blocks(const memfloor_block_event_v1* events, uint64_t count);
  uint32_t step(const memfloor_step_event_v1* step);
  uint32_t backwardStack(uint32_t stack);
  uint32_t moduleStack(uint32_t stack);                   // the calling thread's
  uint32_t property(const char* key, const char* value);  // the companion's (companion.h)
  uint64_t census(const memfloor_census_header_v1* census, const memfloor_held_v1* held,
                  uint64_t count);

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
  bool tracing() const;  // started, not ended, not a forked child
  void enableCallbacks();
  bool openTrace();
  void writeMetadata(const std::string& python_status);
  void warnWithoutPython(const std::string& python_status) const;

  Config config_;
  ProcessFacts facts_;
  std::string path_;
  std::unique_ptr<TraceOutput> output_;
  std::unique_ptr<Recorder> recorder_;  // made with output_, before any callback is enabled
  CUpti_SubscriberHandle subscriber_ = nullptr;
  std::atomic<bool> active_{false};
};

}  // namespace memfloor::hook
