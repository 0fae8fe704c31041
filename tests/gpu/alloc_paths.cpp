// A CUDA program that exercises every allocation path memfloor traces, plus NVTX ranges and eight
// threads allocating at once, and writes what it did to a file (--expect FILE) so a test can
// compare the trace with it exactly:
//   A <kind> <address hex> <size> <flags>     one allocation (kind: device|pinned|managed)
//   F <kind> <address hex> <size> <flags>     one free (flags: 1 async, 2 vmm)
//   M <push|pop|start|end> <name>             one NVTX marker, main thread, in program order
// Exit code 0 on success, 1 on a CUDA error, 2 on bad arguments, 77 when there is no GPU.
#include <cuda.h>
#include <cuda_runtime.h>
#include <memfloor/markers.h>
#include <nvtx3/nvToolsExt.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace {

std::mutex g_mutex;
std::vector<std::string> g_lines;
size_t g_allocs = 0;
size_t g_frees = 0;
unsigned long long g_bytes = 0;

void record(char what, const char* kind, const void* address, size_t size, int flags) {
  char line[128];
  std::snprintf(line, sizeof line, "%c %s %llx %zu %d", what, kind,
                static_cast<unsigned long long>(reinterpret_cast<uintptr_t>(address)), size, flags);
  std::lock_guard<std::mutex> lock(g_mutex);
  g_lines.emplace_back(line);
  if (what == 'A') {
    ++g_allocs;
    g_bytes += size;
  } else {
    ++g_frees;
  }
}

void marker(const char* type, const char* name) {
  std::lock_guard<std::mutex> lock(g_mutex);
  g_lines.push_back(std::string("M ") + type + " " + name);
}

#define CHECK_CUDA(call)                                                 \
  do {                                                                   \
    cudaError_t err_ = (call);                                           \
    if (err_ != cudaSuccess) {                                           \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, \
                   cudaGetErrorString(err_));                            \
      std::exit(1);                                                      \
    }                                                                    \
  } while (0)

#define CHECK_CU(call)                                                          \
  do {                                                                          \
    CUresult res_ = (call);                                                     \
    if (res_ != CUDA_SUCCESS) {                                                 \
      const char* msg_ = nullptr;                                               \
      cuGetErrorString(res_, &msg_);                                            \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, msg_); \
      std::exit(1);                                                             \
    }                                                                           \
  } while (0)

constexpr int kAsync = 1;
constexpr int kVmm = 2;

void iteration(int i, cudaStream_t stream) {
  size_t mib = size_t{1} << 20;
  void* a = nullptr;
  CHECK_CUDA(cudaMalloc(&a, mib + 256 * i));
  record('A', "device", a, mib + 256 * i, 0);

  CUdeviceptr b = 0;
  CHECK_CU(cuMemAlloc(&b, 2 * mib));
  record('A', "device", reinterpret_cast<void*>(b), 2 * mib, 0);

  void* c = nullptr;
  CHECK_CUDA(cudaMallocAsync(&c, 3 * mib, stream));
  record('A', "device", c, 3 * mib, kAsync);

  void* d = nullptr;
  CHECK_CUDA(cudaMallocHost(&d, 64 << 10));
  record('A', "pinned", d, 64 << 10, 0);

  void* e = nullptr;
  CHECK_CUDA(cudaHostAlloc(&e, 128 << 10, cudaHostAllocDefault));
  record('A', "pinned", e, 128 << 10, 0);

  void* f = nullptr;
  CHECK_CUDA(cudaMallocManaged(&f, 256 << 10));
  record('A', "managed", f, 256 << 10, 0);

  // VMM: a physical allocation mapped into a reserved range, made accessible.
  CUmemAllocationProp prop{};
  prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
  prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  prop.location.id = 0;
  size_t granularity = 0;
  CHECK_CU(cuMemGetAllocationGranularity(&granularity, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
  size_t vmm_size = granularity * 2;
  CUmemGenericAllocationHandle handle;
  CHECK_CU(cuMemCreate(&handle, vmm_size, &prop, 0));
  CUdeviceptr va = 0;
  CHECK_CU(cuMemAddressReserve(&va, vmm_size, 0, 0, 0));
  CHECK_CU(cuMemMap(va, vmm_size, 0, handle, 0));
  CUmemAccessDesc access{};
  access.location = prop.location;
  access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
  CHECK_CU(cuMemSetAccess(va, vmm_size, &access, 1));
  record('A', "device", reinterpret_cast<void*>(va), vmm_size, kVmm);
  CHECK_CUDA(cudaMemsetAsync(reinterpret_cast<void*>(va), 0, vmm_size, stream));
  CHECK_CUDA(cudaMemsetAsync(c, 1, 3 * mib, stream));
  CHECK_CUDA(cudaStreamSynchronize(stream));

  CHECK_CU(cuMemUnmap(va, vmm_size));
  record('F', "device", reinterpret_cast<void*>(va), vmm_size, kVmm);
  CHECK_CU(cuMemRelease(handle));
  CHECK_CU(cuMemAddressFree(va, vmm_size));

  CHECK_CUDA(cudaFree(f));
  record('F', "managed", f, 256 << 10, 0);
  CHECK_CUDA(cudaFreeHost(e));
  record('F', "pinned", e, 128 << 10, 0);
  CHECK_CUDA(cudaFreeHost(d));
  record('F', "pinned", d, 64 << 10, 0);
  CHECK_CUDA(cudaFreeAsync(c, stream));
  record('F', "device", c, 3 * mib, kAsync);
  CHECK_CU(cuMemFree(b));
  record('F', "device", reinterpret_cast<void*>(b), 2 * mib, 0);
  CHECK_CUDA(cudaFree(a));
  record('F', "device", a, mib + 256 * i, 0);
  CHECK_CUDA(cudaStreamSynchronize(stream));
}

void worker(int t, int rounds) {
  cudaStream_t stream;
  CHECK_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  for (int r = 0; r < rounds; ++r) {
    size_t size = 4096 * static_cast<size_t>(1 + t) + 512 * static_cast<size_t>(r);
    void* p = nullptr;
    CHECK_CUDA(cudaMalloc(&p, size));
    record('A', "device", p, size, 0);
    void* q = nullptr;
    CHECK_CUDA(cudaMallocAsync(&q, size + 64, stream));
    record('A', "device", q, size + 64, kAsync);
    CHECK_CUDA(cudaFreeAsync(q, stream));
    record('F', "device", q, size + 64, kAsync);
    CHECK_CUDA(cudaFree(p));
    record('F', "device", p, size, 0);
  }
  CHECK_CUDA(cudaStreamSynchronize(stream));
  CHECK_CUDA(cudaStreamDestroy(stream));
}

}  // namespace

int main(int argc, char** argv) {
  const char* expect_path = nullptr;
  int iterations = 3;
  int rounds = 200;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--expect") == 0 && i + 1 < argc) {
      expect_path = argv[++i];
    } else if (std::strcmp(argv[i], "--iterations") == 0 && i + 1 < argc) {
      iterations = std::atoi(argv[++i]);
    } else if (std::strcmp(argv[i], "--rounds") == 0 && i + 1 < argc) {
      rounds = std::atoi(argv[++i]);
    } else {
      std::fprintf(stderr, "usage: %s [--expect FILE] [--iterations N] [--rounds N]\n", argv[0]);
      return 2;
    }
  }
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::fprintf(stderr, "alloc_paths: no CUDA device\n");
    return 77;
  }
  CHECK_CUDA(cudaSetDevice(0));
  CHECK_CUDA(cudaFree(nullptr));  // create the context: the hook is loaded from here on
  cudaStream_t stream;
  CHECK_CUDA(cudaStreamCreate(&stream));

  nvtxRangeId_t run = nvtxRangeStartA("run");
  marker("start", "run");
  for (int i = 0; i < iterations; ++i) {
    std::string name = "iteration " + std::to_string(i);
    nvtxRangePushA(name.c_str());
    marker("push", name.c_str());
    iteration(i, stream);
    nvtxRangePop();
    marker("pop", "-");
  }
  nvtxRangePushA("threads");
  marker("push", "threads");
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) threads.emplace_back(worker, t, rounds);
  for (std::thread& th : threads) th.join();
  nvtxRangePop();
  marker("pop", "-");
  nvtxRangeEnd(run);
  marker("end", "-");
  int api = memfloor_range_push("api marker");  // the C API, under the hook: recorded
  memfloor_range_pop();

  CHECK_CUDA(cudaStreamDestroy(stream));
  CHECK_CUDA(cudaDeviceSynchronize());
  std::printf(
      "alloc_paths: %zu allocations, %zu frees, %llu bytes allocated, %zu lines, "
      "markers API %s\n",
      g_allocs, g_frees, g_bytes, g_lines.size(), api != 0 ? "recorded" : "absent");
  if (expect_path != nullptr) {
    FILE* out = std::fopen(expect_path, "w");
    if (out == nullptr) return 1;
    for (const std::string& line : g_lines) std::fprintf(out, "%s\n", line.c_str());
    std::fclose(out);
  }
  return 0;
}
