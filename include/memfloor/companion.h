/* memfloor/companion.h: the hook's entry points for a companion that reports an allocator's own
 * blocks and what holds them (companion/memfloor/ does, for PyTorch's caching allocator and the
 * program's Python objects, through ctypes).
 *
 * All are exported by libmemfloor_hook.so; all are safe from any thread, never block on
 * anything but the hook's own short locks, never call back into the caller, and return 0 (nothing
 * recorded) when the process is not traced or tracing has ended (but the name patterns', which
 * need no tracing). The layouts are fixed: a change
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

enum {
  MEMFLOOR_HELD_OTHER = 0,          /* an attribute, a container's element, a local, a global */
  MEMFLOOR_HELD_PARAMETER = 1,      /* an nn.Module's parameter */
  MEMFLOOR_HELD_BUFFER = 2,         /* an nn.Module's buffer */
  MEMFLOOR_HELD_GRADIENT = 3,       /* a tensor's .grad */
  MEMFLOOR_HELD_OPTIMIZER_STATE = 4 /* an optimizer's state */
};

/* One storage a census found, with the shortest named path from a root. The strings are read
 * during the call only; via may be NULL or "". */
typedef struct {
  uint64_t address; /* the storage's first byte */
  uint64_t size;    /* the storage's bytes */
  const char* path; /* e.g. "model.layers[1].mlp_norm_manager.tensor" */
  const char* via;  /* autograd nodes on the way, outermost first, joined by " > " */
  uint32_t device;
  uint32_t holders;  /* distinct root variables that reach it (at least 1) */
  uint32_t role;     /* MEMFLOOR_HELD_*; an unknown role is recorded as OTHER */
  uint32_t reserved; /* 0 */
} memfloor_held_v1;

/* One census: when, of which device, what it cost. */
typedef struct {
  uint64_t unix_ns;     /* when it was taken (CLOCK_REALTIME); the hook moves it to its own */
  uint64_t objects;     /* objects walked */
  uint64_t duration_ns; /* what it took */
  uint32_t device;
  uint32_t step;     /* the program's training steps so far, 0 if unknown */
  uint32_t complete; /* 1: walked everything; 0: stopped at an object limit */
  uint32_t reserved; /* 0 */
} memfloor_census_header_v1;

/* Records a census and its count storages. Returns count + 1 when recorded, 0 when the process is
 * not traced (or census is NULL). */
uint64_t memfloor_census_v1(const memfloor_census_header_v1* census, const memfloor_held_v1* held,
                            uint64_t count);

enum { MEMFLOOR_STEP_BEGIN = 0, MEMFLOOR_STEP_END = 1 };

/* One end of a training step: BEGIN at its first forward, END at the end of its last optimizer
 * step (known only once the next step's first forward, or the exit, has come). */
typedef struct {
  uint64_t unix_ns;         /* when (CLOCK_REALTIME); the hook moves it to its own */
  uint32_t step;            /* the training step, counted from 1 */
  uint32_t optimizer_steps; /* END: the optimizer steps it took; BEGIN: 0 */
  uint32_t phase;           /* MEMFLOOR_STEP_BEGIN or MEMFLOOR_STEP_END */
  uint32_t reserved;        /* 0 */
} memfloor_step_event_v1;

/* Records one end of a training step, with the calling thread. Returns 1 when recorded, 0 when
 * the process is not traced, step is NULL or its phase unknown. */
uint32_t memfloor_step_v1(const memfloor_step_event_v1* step);

/* The stack of the backward call now running (from memfloor_python_stack_v1: its caller's
 * frames under a "backward" frame), or 0 when it has returned. The autograd engine's threads run
 * no Python; an allocation they make with no frames takes this stack. Returns 1 when set, 0 when
 * the process is not traced. */
uint32_t memfloor_backward_stack_v1(uint32_t stack);

/* The stack of the module whose forward runs on the calling thread (from
 * memfloor_python_stack_v1: one frame whose file is "<nn.Module>" and whose function is the
 * module's path in its model), or 0 for none. Every allocation the calling thread makes after it
 * takes that frame outermost. On an autograd engine's thread it is the module whose forward made
 * the node now running. Returns 1 when set, 0 when the process is not traced. */
uint32_t memfloor_module_stack_v1(uint32_t stack);

/* A fact the companion learned about the process, written into the trace as a property (key and
 * value NUL-terminated UTF-8): "python.compiled:<file>" names the code torch.compile generated in
 * <file> after what it was compiled from. Returns 1 when recorded, 0 when the process is not
 * traced or key or value is NULL or empty. */
uint32_t memfloor_property_v1(const char* key, const char* value);

/* A name pattern, compiled once: the iteration pattern, read as the analysis reads it (RE2 syntax,
 * case-insensitive, matched against the whole name) and matched in time linear in the name, so
 * that no pattern can stall the caller. These three need no tracing: they work whether or not
 * CUDA has started, and keep no state of the hook's. */
typedef struct memfloor_name_pattern_v1 memfloor_name_pattern_v1;

/* Compiles length bytes of pattern (no NUL needed). Returns NULL when RE2 refuses it (bad syntax,
 * backreferences, lookaround, over RE2's memory budget) or memory runs out; then, when error is
 * not NULL and error_size > 0, error holds why (NUL-terminated, cut to error_size - 1 bytes).
 * Free the result with memfloor_name_pattern_free_v1. */
memfloor_name_pattern_v1* memfloor_name_pattern_compile_v1(const char* pattern, uint64_t length,
                                                           char* error, uint64_t error_size);

/* 1 when the pattern matches the whole name (length bytes), 0 when not or pattern is NULL. */
uint32_t memfloor_name_pattern_match_v1(const memfloor_name_pattern_v1* pattern, const char* name,
                                        uint64_t length);

/* Frees a compiled pattern (NULL: nothing). */
void memfloor_name_pattern_free_v1(memfloor_name_pattern_v1* pattern);

#ifdef __cplusplus
}
#endif

#endif /* MEMFLOOR_COMPANION_H */
