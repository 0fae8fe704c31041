// libmemfloor_min_consumer.so: the baseline of the overhead benchmark, the least a CUPTI consumer
// does to see allocations: MEMORY2 only, 8 MiB buffers (as the hook), records counted and
// dropped, a forced flush at exit. Loaded through CUDA_INJECTION64_PATH like the hook.
//
// With MEMFLOOR_MIN_CONSUMER_SETUP=hook it also sets up what the hook does under --stacks none
// besides MEMORY2, with a callback that returns at once: MEMORY_POOL and DEVICE records, a
// subscriber with the context-teardown driver callbacks (standing for the VMM ones too; the
// benchmark makes no VMM call), cudaDeviceReset's runtime callback and the NVTX domain, and a 1 s
// flush period. Between it and the minimal consumer lies CUPTI's share of `--stacks none`;
// between it and the hook, the hook's own work on the records.
#include <cupti.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace {

std::atomic<unsigned long long> g_records{0};
constexpr size_t kBufferBytes = 8u << 20;

void CUPTIAPI requested(uint8_t** buffer, size_t* size, size_t* max_records) {
  *buffer = static_cast<uint8_t*>(std::aligned_alloc(8, kBufferBytes));
  *size = *buffer != nullptr ? kBufferBytes : 0;
  *max_records = 0;
}

void CUPTIAPI completed(CUcontext, uint32_t, uint8_t* buffer, size_t, size_t valid) {
  CUpti_Activity* record = nullptr;
  unsigned long long n = 0;
  while (valid > 0 && cuptiActivityGetNextRecord(buffer, valid, &record) == CUPTI_SUCCESS) ++n;
  g_records += n;
  std::free(buffer);
}

void CUPTIAPI ignore(void*, CUpti_CallbackDomain, CUpti_CallbackId, const void*) {}

bool setUpAsHook() {
  CUpti_SubscriberHandle subscriber = nullptr;
  const CUpti_CallbackId teardown[] = {
      CUPTI_DRIVER_TRACE_CBID_cuDevicePrimaryCtxReset,
      CUPTI_DRIVER_TRACE_CBID_cuDevicePrimaryCtxReset_v2,
      CUPTI_DRIVER_TRACE_CBID_cuCtxDestroy,
      CUPTI_DRIVER_TRACE_CBID_cuCtxDestroy_v2,
  };
  bool ok = cuptiSubscribe(&subscriber, ignore, nullptr) == CUPTI_SUCCESS &&
            cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MEMORY_POOL) == CUPTI_SUCCESS &&
            cuptiActivityEnable(CUPTI_ACTIVITY_KIND_DEVICE) == CUPTI_SUCCESS &&
            cuptiEnableCallback(1, subscriber, CUPTI_CB_DOMAIN_RUNTIME_API,
                                CUPTI_RUNTIME_TRACE_CBID_cudaDeviceReset_v3020) == CUPTI_SUCCESS &&
            cuptiEnableDomain(1, subscriber, CUPTI_CB_DOMAIN_NVTX) == CUPTI_SUCCESS &&
            cuptiActivityFlushPeriod(1000) == CUPTI_SUCCESS;
  for (CUpti_CallbackId id : teardown) {
    ok = ok && cuptiEnableCallback(1, subscriber, CUPTI_CB_DOMAIN_DRIVER_API, id) == CUPTI_SUCCESS;
  }
  return ok;
}

void atExit() {
  cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  std::fprintf(stderr, "min_consumer: %llu MEMORY2 records\n", g_records.load());
}

}  // namespace

extern "C" __attribute__((visibility("default"))) int InitializeInjection(void) {
  if (cuptiActivityRegisterCallbacks(requested, completed) != CUPTI_SUCCESS ||
      cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MEMORY2) != CUPTI_SUCCESS) {
    std::fprintf(stderr, "min_consumer: CUPTI setup failed\n");
    return 1;
  }
  const char* setup = std::getenv("MEMFLOOR_MIN_CONSUMER_SETUP");
  if (setup != nullptr && std::strcmp(setup, "hook") == 0 && !setUpAsHook()) {
    std::fprintf(stderr, "min_consumer: the hook's CUPTI setup failed\n");
  }
  std::atexit(atExit);
  return 1;
}
