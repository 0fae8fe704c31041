"""memfloor's Python companion: loaded into a traced Python process by `memfloor run`.

It records what only the interpreter knows into the hook's trace, through the hook's C entry
points (include/memfloor/companion.h): today, PyTorch's caching-allocator blocks with their Python
frames. It imports torch only when the program does, keeps no tensor alive and changes nothing
the program allocates.
"""
