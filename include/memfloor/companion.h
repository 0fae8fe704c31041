/* memfloor/companion.h: the hook's entry points for a companion that reports an allocator's own
 * blocks (python/memfloor/ does, for PyTorch's caching allocator, through ctypes).
 *
 * Both are exported by libmemfloor_hook.so; both are safe from any thread, never block on
 * anything but the hook's own short locks, never call back into the caller, and return 0 (nothing
 * recorded) when the process is not traced or tracing has ended. The layouts are fixed: a change
 * makes a _v2. */
#ifndef MEMFLOOR_COMPANION_H
#define MEMFLOOR_COMPANION_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* One Python frame. The strings are read during the call only. */
typedef struct {
  const char* file;
  const char* function;
  uint32_t line;
  uint32_t reserved; /* 0 */
} memfloor_python_frame_v1;

/* Interns a stack of Python frames, innermost first: returns its stack id for
 * memfloor_block_event_v1.stack (the same frames give the same id), or 0 if none was made. */
uint32_t memfloor_python_stack_v1(const memfloor_python_frame_v1* frames, uint32_t count);

enum { MEMFLOOR_BLOCK_ALLOC = 0, MEMFLOOR_BLOCK_FREE = 1 };

/* One block handed out by (ALLOC) or given back to (FREE) an allocator. */
typedef struct {
  uint64_t unix_ns; /* when, on the wall clock (CLOCK_REALTIME); the hook moves it to its own */
  uint64_t address;
  uint64_t size;
  uint32_t stream; /* a small id of the allocator's stream, 0 for the default stream */
  uint32_t device;
  uint32_t stack; /* from memfloor_python_stack_v1, 0 for none */
  uint32_t type;  /* MEMFLOOR_BLOCK_ALLOC or MEMFLOOR_BLOCK_FREE */
} memfloor_block_event_v1;

/* Records count events (any order) as block allocations and frees. Returns how many were
 * recorded: count, or 0 when the process is not traced. Events of an unknown type are skipped. */
uint64_t memfloor_blocks_v1(const memfloor_block_event_v1* events, uint64_t count);

#ifdef __cplusplus
}
#endif

#endif /* MEMFLOOR_COMPANION_H */
