"""The hook's companion entry points (include/memfloor/companion.h) through ctypes."""

import ctypes
import os
from typing import Optional, Sequence, Tuple

BLOCK_ALLOC = 0
BLOCK_FREE = 1

# (file, function, line), innermost first: the frames of one stack.
Frame = Tuple[str, str, int]


class PythonFrameV1(ctypes.Structure):
    _fields_ = [
        ("file", ctypes.c_char_p),
        ("function", ctypes.c_char_p),
        ("line", ctypes.c_uint32),
        ("reserved", ctypes.c_uint32),
    ]


class BlockEventV1(ctypes.Structure):
    _fields_ = [
        ("unix_ns", ctypes.c_uint64),
        ("address", ctypes.c_uint64),
        ("size", ctypes.c_uint64),
        ("stream", ctypes.c_uint32),
        ("device", ctypes.c_uint32),
        ("stack", ctypes.c_uint32),
        ("type", ctypes.c_uint32),
    ]


# One block event as the companion collects it: (unix_ns, address, size, stream, device, stack,
# type).
Event = Tuple[int, int, int, int, int, int, int]


def _encode(text: str) -> bytes:
    return text.encode("utf-8", "surrogateescape")


class Hook:
    """The loaded hook's entry points. ctypes releases the GIL around each call: the hook never
    needs it."""

    def __init__(self, library: ctypes.CDLL):
        self._stack = library.memfloor_python_stack_v1
        self._stack.restype = ctypes.c_uint32
        self._stack.argtypes = [ctypes.POINTER(PythonFrameV1), ctypes.c_uint32]
        self._blocks = library.memfloor_blocks_v1
        self._blocks.restype = ctypes.c_uint64
        self._blocks.argtypes = [ctypes.POINTER(BlockEventV1), ctypes.c_uint64]

    def python_stack(self, frames: Sequence[Frame]) -> int:
        """The hook's id of the stack, 0 if it made none (not traced)."""
        array = (PythonFrameV1 * len(frames))()
        for slot, (file, function, line) in zip(array, frames):
            slot.file = _encode(file)
            slot.function = _encode(function)
            slot.line = max(0, min(int(line), 0xFFFFFFFF))
        return int(self._stack(array, len(frames)))

    def blocks(self, events: Sequence[Event]) -> int:
        """How many of the events the hook recorded (0: not traced)."""
        array = (BlockEventV1 * len(events))(*events)
        return int(self._blocks(array, len(events)))


def find_hook(path: Optional[str] = None) -> Optional[Hook]:
    """The hook this process has loaded (the CUDA driver loads it at cuInit, privately), found by
    its path without loading it; None when it is not loaded (yet)."""
    path = path if path is not None else os.environ.get("CUDA_INJECTION64_PATH", "")
    if not path:
        return None
    try:
        library = ctypes.CDLL(path, mode=os.RTLD_NOLOAD | os.RTLD_LAZY)
        return Hook(library)
    except (OSError, AttributeError):
        return None
