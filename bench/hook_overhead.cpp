// memfloor_hook_bench: per-call cost of cudaMallocAsync/cudaFreeAsync pairs (4 KiB, one stream,
// tight loop). Run it untraced, under bench/hook_min_consumer and under the hook (scripts/
// gpu-check.sh does all four side by side). Prints one line:
//   hook_bench calls=<n> ns_per_call=<median over reps> min=<..> max=<..>
// where a call is one cudaMallocAsync or one cudaFreeAsync (a pair is two calls).
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

int main(int argc, char** argv) {
  int pairs = 100000;
  int reps = 7;
  size_t bytes = 4096;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (std::strcmp(argv[i], "--pairs") == 0) pairs = std::atoi(argv[i + 1]);
    if (std::strcmp(argv[i], "--reps") == 0) reps = std::atoi(argv[i + 1]);
    if (std::strcmp(argv[i], "--bytes") == 0) bytes = static_cast<size_t>(std::atol(argv[i + 1]));
  }
  if (cudaSetDevice(0) != cudaSuccess || cudaFree(nullptr) != cudaSuccess) {
    std::fprintf(stderr, "hook_bench: no CUDA device\n");
    return 77;
  }
  cudaStream_t stream;
  if (cudaStreamCreate(&stream) != cudaSuccess) return 1;
  // Warm up the pool so its growth is not measured.
  for (int i = 0; i < 1000; ++i) {
    void* p = nullptr;
    if (cudaMallocAsync(&p, bytes, stream) != cudaSuccess) return 1;
    if (cudaFreeAsync(p, stream) != cudaSuccess) return 1;
  }
  cudaStreamSynchronize(stream);
  std::vector<double> per_call;
  for (int r = 0; r < reps; ++r) {
    auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < pairs; ++i) {
      void* p = nullptr;
      cudaMallocAsync(&p, bytes, stream);
      cudaFreeAsync(p, stream);
    }
    cudaStreamSynchronize(stream);
    auto end = std::chrono::steady_clock::now();
    double ns = std::chrono::duration<double, std::nano>(end - start).count();
    per_call.push_back(ns / (2.0 * pairs));
  }
  if (cudaGetLastError() != cudaSuccess) return 1;
  std::sort(per_call.begin(), per_call.end());
  std::printf("hook_bench calls=%d ns_per_call=%.1f min=%.1f max=%.1f\n", 2 * pairs * reps,
              per_call[per_call.size() / 2], per_call.front(), per_call.back());
  cudaStreamDestroy(stream);
  return 0;
}
