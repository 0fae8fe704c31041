/* memfloor/markers.h: iteration markers for programs without NVTX. Header-only, C and C++.
 *
 *   memfloor_range_push("iteration");  ...one training step...  memfloor_range_pop();
 *
 * No link dependency (glibc >= 2.34 has dlopen in libc; older ones need -ldl): the functions
 * look up libmemfloor_hook.so's memfloor_marker_v1 when the process runs under `memfloor run`,
 * and do nothing otherwise. The lookup is retried until it succeeds, because the hook is loaded at
 * the first CUDA call: markers made before that are dropped, as NVTX ranges are. */
#ifndef MEMFLOOR_MARKERS_H
#define MEMFLOOR_MARKERS_H

#include <dlfcn.h>
#include <stdint.h>
#include <stdlib.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Marker types: the trace format's MarkerType values. */
enum {
  MEMFLOOR_MARKER_PUSH = 0,
  MEMFLOOR_MARKER_POP = 1,
  MEMFLOOR_MARKER_START = 2,
  MEMFLOOR_MARKER_END = 3,
  MEMFLOOR_MARKER_INSTANT = 4
};

typedef int (*memfloor_marker_fn)(int type, const char* name, uint64_t id);

/* Implemented by the hook: 1 if the marker was recorded, 0 otherwise. */
int memfloor_marker_v1(int type, const char* name, uint64_t id);

static inline memfloor_marker_fn memfloor_marker_lookup_(void) {
  static memfloor_marker_fn cached = 0;
  if (cached != 0) return cached;
  void* symbol = dlsym(RTLD_DEFAULT, "memfloor_marker_v1");
  if (symbol == 0) {
    /* The driver loads the hook privately (RTLD_LOCAL): find it by the path it was loaded from,
     * without loading it ourselves (RTLD_NOLOAD). */
    const char* path = getenv("CUDA_INJECTION64_PATH");
    void* handle = (path != 0 && *path != 0) ? dlopen(path, RTLD_LAZY | RTLD_NOLOAD) : 0;
    if (handle != 0) symbol = dlsym(handle, "memfloor_marker_v1");
  }
  /* The data-to-function pointer conversion is what dlsym is for (POSIX guarantees it). */
#ifdef __cplusplus
  cached = reinterpret_cast<memfloor_marker_fn>(reinterpret_cast<uintptr_t>(symbol));
#else
  cached = (memfloor_marker_fn)(uintptr_t)symbol;
#endif
  return cached;
}

static inline int memfloor_marker_(int type, const char* name, uint64_t id) {
  memfloor_marker_fn fn = memfloor_marker_lookup_();
  return fn != 0 ? fn(type, name, id) : 0;
}

/* A range on this thread, nesting like nvtxRangePush/nvtxRangePop. */
static inline int memfloor_range_push(const char* name) {
  return memfloor_marker_(MEMFLOOR_MARKER_PUSH, name, 0);
}
static inline int memfloor_range_pop(void) { return memfloor_marker_(MEMFLOOR_MARKER_POP, 0, 0); }

/* A range that may end on another thread: pass the same nonzero id to start and end. */
static inline int memfloor_range_start(const char* name, uint64_t id) {
  return memfloor_marker_(MEMFLOOR_MARKER_START, name, id);
}
static inline int memfloor_range_end(uint64_t id) {
  return memfloor_marker_(MEMFLOOR_MARKER_END, 0, id);
}

static inline int memfloor_mark(const char* name) {
  return memfloor_marker_(MEMFLOOR_MARKER_INSTANT, name, 0);
}

#ifdef __cplusplus
}
#endif

#endif /* MEMFLOOR_MARKERS_H */
