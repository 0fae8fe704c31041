// memfloor_lifecycle: the host-process events the hook must survive, one per mode, for the GPU
// checks (scripts/gpu-lifecycle.sh). Prints what it did on stdout; exit code 0 on success, 1 on a
// CUDA error, 2 on bad arguments, 77 when there is no GPU.
//   subscriber  subscribes its own CUPTI callback before any CUDA call, then allocates and frees
//               4 buffers: under the hook, one of the two subscriptions must fail cleanly
//   reset-kill  allocates and frees 8 buffers, calls cudaDeviceReset, then SIGKILLs itself: the
//               records flushed at the reset must be in the trace
//   fork        allocates, forks a child that exits through exit() (atexit handlers run), then
//               frees and allocates again: one complete trace, the parent's, with 2 + 2 records
#include <cuda_runtime.h>
#include <cupti.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace {

bool ok(cudaError_t e, const char* what) {
  if (e == cudaSuccess) return true;
  std::fprintf(stderr, "lifecycle: %s: %s\n", what, cudaGetErrorString(e));
  return false;
}

void CUPTIAPI onCallback(void*, CUpti_CallbackDomain, CUpti_CallbackId, const void*) {}

int allocFree(int count, size_t size) {
  for (int i = 0; i < count; ++i) {
    void* p = nullptr;
    if (!ok(cudaMalloc(&p, size), "cudaMalloc") || !ok(cudaFree(p), "cudaFree")) return 1;
  }
  std::printf("lifecycle: %d cudaMalloc + %d cudaFree of %zu bytes\n", count, count, size);
  return 0;
}

int subscriber() {
  CUpti_SubscriberHandle handle = nullptr;
  CUptiResult r = cuptiSubscribe(&handle, onCallback, nullptr);
  const char* text = nullptr;
  cuptiGetResultString(r, &text);
  std::printf("lifecycle: own cuptiSubscribe: %s\n", text != nullptr ? text : "?");
  if (r == CUPTI_SUCCESS) cuptiEnableDomain(1, handle, CUPTI_CB_DOMAIN_RUNTIME_API);
  const int rc = allocFree(4, 1 << 20);
  if (r == CUPTI_SUCCESS) cuptiUnsubscribe(handle);
  return rc;
}

int resetKill() {
  if (allocFree(8, 1 << 20) != 0) return 1;
  if (!ok(cudaDeviceReset(), "cudaDeviceReset")) return 1;
  std::printf("lifecycle: cudaDeviceReset done, SIGKILL\n");
  std::fflush(stdout);
  std::raise(SIGKILL);
  return 1;
}

int forkChild() {
  void* p = nullptr;
  if (!ok(cudaMalloc(&p, 1 << 20), "cudaMalloc")) return 1;
  std::fflush(stdout);
  const pid_t pid = ::fork();
  if (pid < 0) return 1;
  if (pid == 0) std::exit(0);  // no CUDA here; atexit handlers run
  int status = 0;
  ::waitpid(pid, &status, 0);
  std::printf("lifecycle: child exited with %d\n", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
  if (!ok(cudaFree(p), "cudaFree")) return 1;
  return allocFree(1, 2 << 20);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s subscriber|reset-kill|fork\n", argv[0]);
    return 2;
  }
  const char* mode = argv[1];
  if (std::strcmp(mode, "subscriber") == 0) return subscriber();  // before any CUDA call
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) return 77;
  if (std::strcmp(mode, "reset-kill") == 0) return resetKill();
  if (std::strcmp(mode, "fork") == 0) return forkChild();
  std::fprintf(stderr, "lifecycle: unknown mode '%s'\n", mode);
  return 2;
}
