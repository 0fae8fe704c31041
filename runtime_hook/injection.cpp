// The hook's exported entry points: InitializeInjection (CUDA_INJECTION64_PATH),
// InitializeInjectionNvtx2 (NVTX_INJECTION64_PATH, forwarded to CUPTI), the markers C API and the
// companion API (include/memfloor/companion.h).
// Everything else in libmemfloor_hook.so is hidden (runtime_hook/exports.map).
#include <dlfcn.h>

#include <cstdint>
#include <cstdio>

#include "include/memfloor/companion.h"
#include "include/memfloor/markers.h"
#include "runtime_hook/name_pattern_calls.h"
#include "runtime_hook/session.h"

namespace {

using NvtxInit = int (*)(void*);

}  // namespace

extern "C" {

// Called by the CUDA driver at cuInit. Returns 1 in every case: a tracer that cannot trace must
// not make the host fail (the driver ignores the value, but be explicit).
// NOLINTNEXTLINE(readability-identifier-naming): the name the CUDA driver looks up
__attribute__((visibility("default"))) int InitializeInjection(void) {
  try {
    memfloor::hook::Session::start();
  } catch (...) {
    std::fprintf(stderr,
                 "memfloor: internal error while starting; this process runs on untraced\n");
  }
  return 1;
}

// NVTX loads the library named by NVTX_INJECTION64_PATH at the program's first NVTX call and
// calls this. `memfloor run` points it at the hook, which hands NVTX over to CUPTI (the hook's own
// dependency, so no second path to find): CUPTI then reports ranges to the hook's NVTX callbacks.
// NOLINTNEXTLINE(readability-identifier-naming): the name NVTX looks up
__attribute__((visibility("default"))) int InitializeInjectionNvtx2(void* get_export_table) {
  void* cupti = dlopen("libcupti.so." MEMFLOOR_CUPTI_MAJOR, RTLD_LAZY | RTLD_NOLOAD);
  if (cupti == nullptr) cupti = dlopen("libcupti.so", RTLD_LAZY | RTLD_NOLOAD);
  if (cupti == nullptr) {
    std::fprintf(stderr, "memfloor: libcupti is not loaded; NVTX ranges are not recorded\n");
    return 0;
  }
  auto init = reinterpret_cast<NvtxInit>(dlsym(cupti, "InitializeInjectionNvtx2"));
  if (init == nullptr) {
    std::fprintf(stderr,
                 "memfloor: libcupti has no NVTX injection; NVTX ranges are not recorded\n");
    return 0;
  }
  return init(get_export_table);
}

__attribute__((visibility("default"))) int memfloor_marker_v1(int type, const char* name,
                                                              uint64_t id) {
  try {
    memfloor::hook::Session* session = memfloor::hook::Session::current();
    if (session == nullptr) return 0;
    return session->marker(type, name, id) ? 1 : 0;
  } catch (...) {
    return 0;
  }
}

__attribute__((visibility("default"))) uint32_t memfloor_python_stack_v1(
    const memfloor_python_frame_v1* frames, uint32_t count) {
  try {
    memfloor::hook::Session* session = memfloor::hook::Session::current();
    return session != nullptr ? session->pythonStack(frames, count) : 0;
  } catch (...) {
    return 0;
  }
}

__attribute__((visibility("default"))) uint64_t memfloor_blocks_v1(
    const memfloor_block_event_v1* events, uint64_t count) {
  try {
    memfloor::hook::Session* session = memfloor::hook::Session::current();
    return session != nullptr ? session->blocks(events, count) : 0;
  } catch (...) {
    return 0;
  }
}

__attribute__((visibility("default"))) uint64_t memfloor_census_v1(
    const memfloor_census_header_v1* census, const memfloor_held_v1* held, uint64_t count) {
  try {
    memfloor::hook::Session* session = memfloor::hook::Session::current();
    return session != nullptr ? session->census(census, held, count) : 0;
  } catch (...) {
    return 0;
  }
}

__attribute__((visibility("default"))) uint32_t memfloor_step_v1(
    const memfloor_step_event_v1* step) {
  try {
    memfloor::hook::Session* session = memfloor::hook::Session::current();
    return session != nullptr ? session->step(step) : 0;
  } catch (...) {
    return 0;
  }
}

__attribute__((visibility("default"))) uint32_t memfloor_backward_stack_v1(uint32_t stack) {
  try {
    memfloor::hook::Session* session = memfloor::hook::Session::current();
    return session != nullptr ? session->backwardStack(stack) : 0;
  } catch (...) {
    return 0;
  }
}

__attribute__((visibility("default"))) uint32_t memfloor_module_stack_v1(uint32_t stack) {
  try {
    memfloor::hook::Session* session = memfloor::hook::Session::current();
    return session != nullptr ? session->moduleStack(stack) : 0;
  } catch (...) {
    return 0;
  }
}

__attribute__((visibility("default"))) uint32_t memfloor_property_v1(const char* key,
                                                                     const char* value) {
  try {
    memfloor::hook::Session* session = memfloor::hook::Session::current();
    return session != nullptr ? session->property(key, value) : 0;
  } catch (...) {
    return 0;
  }
}

__attribute__((visibility("default"))) memfloor_name_pattern_v1* memfloor_name_pattern_compile_v1(
    const char* pattern, uint64_t length, char* error, uint64_t error_size) {
  return memfloor::hook::compilePatternCall(pattern, length, error, error_size);
}

__attribute__((visibility("default"))) uint32_t memfloor_name_pattern_match_v1(
    const memfloor_name_pattern_v1* pattern, const char* name, uint64_t length) {
  return memfloor::hook::matchPatternCall(pattern, name, length);
}

__attribute__((visibility("default"))) void memfloor_name_pattern_free_v1(
    memfloor_name_pattern_v1* pattern) {
  memfloor::hook::freePatternCall(pattern);
}

}  // extern "C"
