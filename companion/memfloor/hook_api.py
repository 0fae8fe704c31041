"""The hook's companion entry points (include/memfloor/companion.h) through ctypes."""

import ctypes
import os
from typing import Callable, Optional, Sequence, Tuple

from memfloor.census_roles import ROLES

BLOCK_ALLOC = 0
BLOCK_FREE = 1
STEP_BEGIN = 0
STEP_END = 1

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


class HeldV1(ctypes.Structure):
    """memfloor_held_v1: one storage a census found."""

    _fields_ = [
        ("address", ctypes.c_uint64),
        ("size", ctypes.c_uint64),
        ("path", ctypes.c_char_p),
        ("via", ctypes.c_char_p),
        ("device", ctypes.c_uint32),
        ("holders", ctypes.c_uint32),
        ("role", ctypes.c_uint32),
        ("reserved", ctypes.c_uint32),
    ]


class CensusV1(ctypes.Structure):
    """memfloor_census_v1: one census of one device."""

    _fields_ = [
        ("unix_ns", ctypes.c_uint64),
        ("objects", ctypes.c_uint64),
        ("duration_ns", ctypes.c_uint64),
        ("device", ctypes.c_uint32),
        ("step", ctypes.c_uint32),
        ("complete", ctypes.c_uint32),
        ("reserved", ctypes.c_uint32),
    ]


class StepEventV1(ctypes.Structure):
    """memfloor_step_event_v1: one end of a training step."""

    _fields_ = [
        ("unix_ns", ctypes.c_uint64),
        ("step", ctypes.c_uint32),
        ("optimizer_steps", ctypes.c_uint32),
        ("phase", ctypes.c_uint32),
        ("reserved", ctypes.c_uint32),
    ]


PATTERN_ERROR_SIZE = 256  # bytes of RE2's reason for refusing a name pattern

# The hook's MEMFLOOR_HELD_* values, by census_roles' names.
HELD_ROLES = {name: value for value, name in enumerate(ROLES)}
VIA_SEPARATOR = " > "  # between the autograd nodes of a held storage's `via`

# One block event as the companion collects it: (unix_ns, address, size, stream, device, stack,
# type).
Event = Tuple[int, int, int, int, int, int, int]


def _encode(text: str) -> bytes:
    return text.encode("utf-8", "surrogateescape")


def _u32(value: int) -> int:
    return max(0, min(int(value), 0xFFFFFFFF))


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
        # Newer than the others: a hook without it records no census.
        self._census = getattr(library, "memfloor_census_v1", None)
        if self._census is not None:
            self._census.restype = ctypes.c_uint64
            self._census.argtypes = [ctypes.POINTER(CensusV1), ctypes.POINTER(HeldV1),
                                     ctypes.c_uint64]

        self._step = getattr(library, "memfloor_step_v1", None)  # newer still
        if self._step is not None:
            self._step.restype = ctypes.c_uint32
            self._step.argtypes = [ctypes.POINTER(StepEventV1)]
        self._backward = getattr(library, "memfloor_backward_stack_v1", None)  # newest
        if self._backward is not None:
            self._backward.restype = ctypes.c_uint32
            self._backward.argtypes = [ctypes.c_uint32]
        self._module = getattr(library, "memfloor_module_stack_v1", None)  # newest
        if self._module is not None:
            self._module.restype = ctypes.c_uint32
            self._module.argtypes = [ctypes.c_uint32]
        self._property = getattr(library, "memfloor_property_v1", None)  # newest
        if self._property is not None:
            self._property.restype = ctypes.c_uint32
            self._property.argtypes = [ctypes.c_char_p, ctypes.c_char_p]
        self._compile = getattr(library, "memfloor_name_pattern_compile_v1", None)
        self._match = getattr(library, "memfloor_name_pattern_match_v1", None)
        if self._compile is not None and self._match is not None:
            self._compile.restype = ctypes.c_void_p
            self._compile.argtypes = [ctypes.c_char_p, ctypes.c_uint64, ctypes.c_char_p,
                                      ctypes.c_uint64]
            self._match.restype = ctypes.c_uint32
            self._match.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_uint64]

    @property
    def has_census(self) -> bool:
        return self._census is not None

    @property
    def has_step(self) -> bool:
        return self._step is not None

    def step(self, phase: int, step: int, optimizer_steps: int, unix_ns: int) -> int:
        """Records one end of a training step (STEP_BEGIN or STEP_END); 1 when recorded."""
        if self._step is None:
            return 0
        event = StepEventV1(unix_ns=unix_ns, step=_u32(step),
                            optimizer_steps=_u32(optimizer_steps), phase=phase)
        return int(self._step(ctypes.byref(event)))

    def backward_stack(self, stack: int) -> int:
        """Names the allocations without frames by `stack` (0: none) while a backward runs;
        1 when set, 0 when not (not traced, or an older hook)."""
        return int(self._backward(_u32(stack))) if self._backward is not None else 0

    @property
    def has_module_stack(self) -> bool:
        return self._module is not None

    def module_stack(self, stack: int) -> int:
        """Gives the calling thread's allocations `stack` outermost (0: none): the module whose
        forward runs; 1 when set, 0 when not (not traced, or an older hook)."""
        return int(self._module(stack)) if self._module is not None else 0

    def write_property(self, key: str, value: str) -> int:
        """Writes a fact about the process into the trace (memfloor_property_v1); 1 when
        written, 0 when not (not traced, or an older hook)."""
        if self._property is None:
            return 0
        return int(self._property(_encode(key), _encode(value)))

    @property
    def has_name_pattern(self) -> bool:
        return self._compile is not None and self._match is not None

    def name_pattern(self, pattern: str) -> Callable[[str], bool]:
        """The hook's RE2 reading of `pattern` (case-insensitive, whole names, as the analysis
        matches iteration names): a function that tells whether a name matches, in time linear in
        the name. ValueError with RE2's reason when it refuses the pattern; call only when
        has_name_pattern. The compiled pattern lives as long as the process."""
        text = _encode(pattern)
        error = ctypes.create_string_buffer(PATTERN_ERROR_SIZE)
        handle = self._compile(text, len(text), error, PATTERN_ERROR_SIZE)
        if not handle:
            raise ValueError(error.value.decode("utf-8", "replace") or "refused")
        match = self._match

        def matches(name: str) -> bool:
            try:
                data = _encode(name)
            except UnicodeEncodeError:  # a lone surrogate: no UTF-8 name
                data = name.encode("utf-8", "replace")
            return match(handle, data, len(data)) == 1

        return matches

    def python_stack(self, frames: Sequence[Frame]) -> int:
        """The hook's id of the stack, 0 if it made none (not traced)."""
        array = (PythonFrameV1 * len(frames))()
        for slot, (file, function, line) in zip(array, frames):
            slot.file = _encode(file)
            slot.function = _encode(function)
            slot.line = _u32(line)
        return int(self._stack(array, len(frames)))

    def blocks(self, events: Sequence[Event]) -> int:
        """How many of the events the hook recorded (0: not traced)."""
        array = (BlockEventV1 * len(events))(*events)
        return int(self._blocks(array, len(events)))

    def census(self, header: CensusV1, entries: Sequence) -> int:
        """Records one census of one device (`header`) and its storages: census.StorageEntry
        objects (address, nbytes, path, via_graph, holders, role), given the header's device.
        Returns len(entries) + 1 when recorded, 0 when not (not traced, or an older hook)."""
        if self._census is None:
            return 0
        array = (HeldV1 * len(entries))()
        for slot, entry in zip(array, entries):
            slot.address = entry.address
            slot.size = entry.nbytes
            slot.path = _encode(entry.path)  # the structure keeps the bytes alive
            slot.via = _encode(VIA_SEPARATOR.join(entry.via_graph))
            slot.device = header.device
            slot.holders = _u32(max(1, entry.holders))
            slot.role = HELD_ROLES.get(entry.role, 0)
        return int(self._census(ctypes.byref(header), array, len(entries)))


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
