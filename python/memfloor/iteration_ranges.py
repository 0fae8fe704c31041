"""The program's iteration ranges as PyTorch's NVTX functions open and close them: where a census
waits when the optimizer steps inside an iteration.

A training loop that marks its iterations (`torch.cuda.nvtx.range_push("iteration 7")` ...
`range_pop()`, or `with torch.cuda.nvtx.range(...)`) usually steps its optimizer inside the range:
the idle window starts only when the range closes. The companion wraps torch.cuda.nvtx's
range_push, range_pop, range_start and range_end (the context manager calls them by name, so it is
covered too); a range whose name the iteration pattern fully matches (case-insensitive, as the
analysis matches it; `memfloor run` passes its pattern in MEMFLOOR_CENSUS_RANGES) is an iteration.
Without a pattern every outermost range is one. The wrappers call the originals and return what
they return; what they add is a list append or pop, and, before an iteration opens or after the
last one closes, the waiting census (census_schedule.py)."""

import re
import threading
import types
from typing import Callable, Dict, List, Optional

WRAPPED = ("range_push", "range_pop", "range_start", "range_end")


class IterationRanges:
    def __init__(self, pattern: Optional[str]) -> None:
        """pattern: the iteration pattern (Python's re reads the analysis' default as it is); None
        or "" for every range. re.error for a pattern Python cannot read."""
        self._pattern = re.compile(pattern, re.IGNORECASE) if pattern else None
        self._local = threading.local()
        self._started: Dict[int, bool] = {}  # range_start id -> names an iteration
        self._lock = threading.Lock()
        self.on_end: Optional[Callable[[], None]] = None  # called when no iteration is open
        self.on_begin: Optional[Callable[[], None]] = None  # before one opens with none open

    # -- state ---------------------------------------------------------------------------------

    def _stack(self) -> List[bool]:
        stack = getattr(self._local, "stack", None)
        if stack is None:
            stack = self._local.stack = []
        return stack

    def inside(self) -> bool:
        """An iteration range is open: pushed in this thread, or started in any."""
        with self._lock:
            started = any(self._started.values())
        return any(self._stack()) or started

    def _ended(self) -> None:
        if self.on_end is not None and not self.inside():
            self.on_end()

    # -- what the wrappers record ----------------------------------------------------------------

    def _beginning(self, iteration: bool) -> bool:
        if iteration and self.on_begin is not None and not self.inside():
            self.on_begin()
        return iteration

    def pushing(self, message: object) -> bool:
        """Before a push: whether it opens an iteration (an idle window ends there)."""
        stack = self._stack()
        return self._beginning(self._iteration_name(message, not stack))

    def pushed(self, iteration: bool) -> None:
        self._stack().append(iteration)

    def popped(self) -> None:
        stack = self._stack()
        if stack and stack.pop():
            self._ended()

    def starting(self, message: object) -> bool:
        return self._beginning(self._iteration_name(message, True))

    def started(self, range_id: object, iteration: bool) -> None:
        if isinstance(range_id, int):
            with self._lock:
                self._started[range_id] = iteration

    def finished(self, range_id: object) -> None:
        with self._lock:
            was = self._started.pop(range_id, False) if isinstance(range_id, int) else False
        if was:
            self._ended()

    def _iteration_name(self, message: object, outermost: bool) -> bool:
        if self._pattern is None:
            return outermost
        name = message if isinstance(message, str) else str(message)
        return self._pattern.fullmatch(name) is not None

    # -- wrapping ------------------------------------------------------------------------------

    def install(self, nvtx: types.ModuleType) -> bool:
        """Wraps the module's range functions; False (nothing wrapped) if one is missing."""
        originals = {name: getattr(nvtx, name, None) for name in WRAPPED}
        if any(not callable(function) for function in originals.values()):
            return False
        push, pop = originals["range_push"], originals["range_pop"]
        start, end = originals["range_start"], originals["range_end"]

        def range_push(msg, *args, **kwargs):
            iteration = self.pushing(msg)
            result = push(msg, *args, **kwargs)
            self.pushed(iteration)
            return result

        def range_pop(*args, **kwargs):
            result = pop(*args, **kwargs)
            self.popped()
            return result

        def range_start(msg, *args, **kwargs):
            iteration = self.starting(msg)
            result = start(msg, *args, **kwargs)
            self.started(result, iteration)
            return result

        def range_end(range_id, *args, **kwargs):
            result = end(range_id, *args, **kwargs)
            self.finished(range_id)
            return result

        for name, wrapper in zip(WRAPPED, (range_push, range_pop, range_start, range_end)):
            wrapper.__wrapped__ = originals[name]
            wrapper.__doc__ = originals[name].__doc__
            setattr(nvtx, name, wrapper)
        return True

