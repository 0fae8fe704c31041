"""memfloor's Python companion: loaded into a traced Python process by `memfloor run`.

It records what only the interpreter knows into the hook's trace, through the hook's C entry
points (include/memfloor/companion.h): PyTorch's caching-allocator blocks with their Python
frames, and, after some optimizer steps, censuses of the Python paths that hold the tensors. It
imports torch only when the program does, keeps no tensor alive and changes nothing the program
allocates.
"""
