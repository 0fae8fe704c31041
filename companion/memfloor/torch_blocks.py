"""PyTorch's caching-allocator blocks into the trace, drained from its memory history."""

import inspect
import os
import sys
import threading
import time
import types
from typing import Dict, Optional, Sequence, Tuple

from memfloor import run_settings
from memfloor.backward_calls import BackwardCalls
from memfloor.block_log import BlockLog
from memfloor.counts import count_of
from memfloor.free_blocks import FreeBlocks
from memfloor.guard import guarded, say
from memfloor.hook_api import Frame, Hook, find_hook
from memfloor.qualnames import QualNames

# The history is a ring: a batch larger than this loses its oldest entries (the state's
# reconciliation still closes every block). Drained every flush period, it is far from full.
MAX_ENTRIES = 1_000_000
HISTORY = dict(enabled="all", context="alloc", stacks="python", max_entries=MAX_ENTRIES)
# What PyTorch's snapshot imports when it first turns frames into Python (PyTorch 2.x: the whole
# of torch._dynamo, some 900 modules). The companion's thread takes no snapshot before the program
# has imported these itself (any optimizer does): an import of ours would race with the program's
# (Python hands a thread a partly initialized module rather than deadlock) and load what the
# program never asked for. Until then the history keeps its entries; the last drain, at exit,
# takes them whatever was imported.
SNAPSHOT_IMPORTS = ("torch._dynamo",)
# A history entry holds the size a block was asked for; the block can be larger (the allocator
# does not split a large free block for a small remainder) and PyTorch counts the block. Blocks
# still live at a drain take their size from the allocator's state, so drains are placed where the
# idle window is: right after an optimizer step, at most once a period, and after each of the
# first steps, by which the parameters, gradients and optimizer state exist.
FIRST_STEPS_DRAINED = 2


def _imported(name: str) -> bool:
    module = sys.modules.get(name)
    spec = getattr(module, "__spec__", None)
    return module is not None and not getattr(spec, "_initializing", False)


def step_post_hook_registrar(torch: types.ModuleType):
    """torch.optim.optimizer.register_optimizer_step_post_hook (PyTorch 2.0 on: a hook after every
    optimizer's step), found through the module of torch.optim.Optimizer: torch.optim deletes its
    `optimizer` attribute."""
    base = getattr(getattr(torch, "optim", None), "Optimizer", None)
    module = sys.modules.get(getattr(base, "__module__", ""))
    return getattr(module, "register_optimizer_step_post_hook", None)


def free_blocks_model(environ) -> Optional[FreeBlocks]:
    """How the allocator sizes its blocks, from its configuration (free_blocks.py); None, the
    sizes asked for, where it rounds them in a way the model does not follow
    (roundup_power2_divisions)."""
    conf = ",".join(environ.get(name, "") for name in ("PYTORCH_CUDA_ALLOC_CONF",
                                                         "PYTORCH_ALLOC_CONF"))
    options = {}
    for item in conf.split(","):
        key, _, value = item.partition(":")
        options[key.strip()] = value.strip()
    if "roundup_power2_divisions" in options:
        return None
    max_split = count_of(options.get("max_split_size_mb", ""))
    return FreeBlocks(split_always=options.get("expandable_segments", "").lower() == "true",
                      max_split_size=max_split << 20 if max_split is not None else None)


class TorchBlocks:
    """The one recorder of a process: enables the allocator's history when CUDA initializes, then
    drains it into the hook every period and at exit."""

    def __init__(self, torch: types.ModuleType, period_s: float,
                 backward: Optional[BackwardCalls] = None) -> None:
        self._torch = torch
        self._period_s = period_s
        self._backward = backward  # names the blocks backward makes (backward_calls.py)
        self._qualnames = QualNames()
        self._lock = threading.Lock()
        self._log = BlockLog(free_blocks_model(os.environ))
        self._stacks: Dict[Tuple[Frame, ...], int] = {}
        self._hook: Optional[Hook] = None
        self._gap_ns = time.time_ns()
        self._last_drain = time.monotonic()
        self._steps = 0
        self._drains = 0
        self._on = False
        self._stop = threading.Event()

    # -- set-up ------------------------------------------------------------------------------

    def start(self) -> bool:
        """Asks PyTorch to enable the history when it initializes CUDA; False if it cannot."""
        memory = getattr(getattr(self._torch, "cuda", None), "memory", None)
        record = getattr(memory, "_record_memory_history", None)
        lazy_call = getattr(self._torch.cuda, "_lazy_call", None)
        if record is None or lazy_call is None or not hasattr(memory, "_snapshot"):
            return False
        if "clear_history" not in inspect.signature(record).parameters:
            say(f"PyTorch {self._torch.__version__} cannot clear its memory history: "
                 "allocator blocks are not recorded (segments still are)")
            return False
        lazy_call(self._enable)  # runs inside PyTorch's CUDA initialization, or now if done
        return True

    def _enable(self) -> None:
        # Called by PyTorch's lazy CUDA initialization: an exception here would fail the program.
        try:
            memory = self._torch.cuda.memory
            if memory.get_allocator_backend() != "native":
                return  # cudaMallocAsync: CUPTI sees every block itself
            memory._record_memory_history(**HISTORY)
            self._gap_ns = time.time_ns()
            self._on = True
            os.register_at_fork(after_in_child=self._stop.set)
            register = step_post_hook_registrar(self._torch)
            if register is not None:
                register(guarded("recording PyTorch's allocator blocks", self._after_step))
            threading.Thread(target=self._run, name="memfloor-blocks", daemon=True).start()
        except Exception as error:  # noqa: BLE001
            say(f"cannot record PyTorch's allocator blocks: {error!r}")

    @property
    def recording(self) -> bool:
        """Whether PyTorch's memory history records the blocks (the caching allocator)."""
        return self._on

    # -- draining ----------------------------------------------------------------------------

    def _due(self) -> bool:
        return time.monotonic() - self._last_drain >= self._period_s

    @staticmethod
    def _ready() -> bool:
        return all(_imported(name) for name in SNAPSHOT_IMPORTS)

    def _run(self) -> None:
        while not self._stop.wait(self._period_s / 2):
            if self._due() and self._ready():
                self.drain()

    def _after_step(self, optimizer, args, kwargs) -> None:  # noqa: ARG002: the hook's signature
        """In the program's thread, after an optimizer's step: the start of an idle window."""
        self._steps += 1
        if (self._due() or self._steps <= FIRST_STEPS_DRAINED) and self._ready():
            self.drain()

    def _stack_of(self, frames: Sequence[Frame]) -> int:
        key = tuple(frames)
        stack = self._stacks.get(key)
        if stack is None:
            stack = 0
            if key and self._hook is not None:
                # The history names a frame by co_name, the hook by co_qualname: one name each.
                qualify = self._qualnames.qualify
                stack = self._hook.python_stack(
                    tuple((file, qualify(file, name, line), line) for file, name, line in key))
            if stack:
                self._stacks[key] = stack
        return stack

    def drain(self) -> None:
        """Moves the history so far into the trace. Safe from any thread, at any time."""
        if not self._on or self._stop.is_set():
            return
        with self._lock:
            try:
                if self._hook is None:
                    self._hook = find_hook()
                    if self._hook is None:
                        return  # the driver has not loaded it yet: the history keeps the entries
                memory = self._torch.cuda.memory
                snapshot = memory._snapshot()
                memory._record_memory_history(**HISTORY, clear_history=True)
                gap_ns, self._gap_ns = self._gap_ns, time.time_ns()
                self._last_drain = time.monotonic()
                self._drains += 1
                backward = self._backward
                events = self._log.events(snapshot, gap_ns, self._stack_of,
                                          backward.frames_at if backward is not None else None)
                if backward is not None:
                    backward.forget_before(self._gap_ns)
                if events:
                    self._hook.blocks(events)
            except Exception as error:  # noqa: BLE001
                self._on = False
                say(f"stopped recording PyTorch's allocator blocks: {error!r}")

    def stop(self) -> None:
        """The last drain (at exit)."""
        self.drain()
        self._stop.set()
        if run_settings.verbose(os.environ):
            log = self._log
            say(f"PyTorch blocks: {self._drains} drains ({self._steps} optimizer steps seen), "
                 f"{log.events_written} events, {len(self._stacks)} stacks; "
                 f"reconciled with the allocator's state: {log.reconciled_allocs} allocations, "
                 f"{log.reconciled_frees} frees, {log.resized} sizes; "
                 f"{log.unknown_frees} frees of unseen blocks")
