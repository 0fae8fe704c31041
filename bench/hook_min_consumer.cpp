// libmemfloor_min_consumer.so: the baseline of the overhead benchmark, the least a CUPTI consumer
// does to see allocations: MEMORY2 only, 8 MiB buffers (as the hook), records counted and
// dropped, a forced flush at exit. Loaded through CUDA_INJECTION64_PATH like the hook.
#include <cupti.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>

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
  std::atexit(atExit);
  return 1;
}
