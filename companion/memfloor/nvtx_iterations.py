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
last one closes, the waiting census (census_schedule.py). Nothing they add raises into the
program: a failure there is said once and turns the watching off.

The pattern is the user's: Python's backtracking re would take hours over `(a+)+` and a name of
thirty a's, inside the program's range_push. So the hook matches it (RE2, linear in the name,
memfloor_name_pattern_*_v1), once the hook is loaded, which CUDA's first call does: ranges opened
before that are not iterations (the hook records none of them either). A hook without those entry
points watches no range."""

import threading
import time
import types
from typing import Callable, Dict, List, Optional

from memfloor import run_settings
from memfloor.hook_api import Hook, find_hook
from memfloor.guard import say

WRAPPED = ("range_push", "range_pop", "range_start", "range_end")
FIND_EVERY_S = 1.0  # how often a push looks for the hook until CUDA has loaded it


def _never(name: str) -> bool:  # noqa: ARG001: a matcher's signature
    return False


class NvtxIterations:
    def __init__(self, pattern: Optional[str],
                 find: Callable[[], Optional[Hook]] = find_hook) -> None:
        """pattern: the iteration pattern, in RE2's syntax (the hook compiles it); None or "" for
        every outermost range. find: the loaded hook, None while it is not."""
        self._pattern = pattern or None
        self._find = find
        self._matches: Optional[Callable[[str], bool]] = None  # the hook's, once it is loaded
        self._find_after = 0.0  # monotonic time before which no push looks for the hook again
        self.on = True  # False after a failure: the wrappers only call the originals
        self._installed = None  # (module, its wrappers by name) once installed
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
        if not self.on:
            return False
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
        matches = self._matches or self._matcher()
        if matches is None:
            return False
        if self._pattern is None:  # the hook refused it just now
            return outermost
        return isinstance(message, str) and matches(message)

    def _matcher(self) -> Optional[Callable[[str], bool]]:
        """The hook's matcher for the pattern, or None while the hook is not loaded (looked for
        at most once a FIND_EVERY_S)."""
        now = time.monotonic()
        if now < self._find_after:
            return None
        self._find_after = now + FIND_EVERY_S
        hook = self._find()
        if hook is None:
            return None
        if not hook.has_name_pattern:
            say("the loaded hook cannot match MEMFLOOR_CENSUS_RANGES (older than the companion): "
                "no range is an iteration for the census")
            self._matches = _never
        else:
            try:
                self._matches = hook.name_pattern(self._pattern)
            except ValueError as error:
                say(f"{run_settings.CENSUS_RANGES}={self._pattern}: {error}; every outermost range is an "
                    "iteration")
                self._pattern = None
                self._matches = _never
        return self._matches

    def _fail(self, error: BaseException) -> None:
        """Something the wrappers add failed: said once; they only call the originals from now."""
        if self.on:
            self.on = False
            say(f"watching NVTX ranges failed: {error!r}; censuses no longer wait for them")

    # -- wrapping ------------------------------------------------------------------------------

    def _guarded(self, what: Callable, *args):
        """what(*args), or None when watching is off or it fails (then said once, and off)."""
        if not self.on:
            return None
        try:
            return what(*args)
        except Exception as error:  # noqa: BLE001 - never into the program's range call
            self._fail(error)
            return None

    def install(self, nvtx: types.ModuleType) -> bool:
        """Wraps the module's range functions; False (nothing wrapped) if one is missing."""
        originals = {name: getattr(nvtx, name, None) for name in WRAPPED}
        if any(not callable(function) for function in originals.values()):
            return False
        push, pop = originals["range_push"], originals["range_pop"]
        start, end = originals["range_start"], originals["range_end"]
        guarded = self._guarded

        def range_push(msg, *args, **kwargs):
            iteration = guarded(self.pushing, msg)
            result = push(msg, *args, **kwargs)
            guarded(self.pushed, bool(iteration))
            return result

        def range_pop(*args, **kwargs):
            result = pop(*args, **kwargs)
            guarded(self.popped)
            return result

        def range_start(msg, *args, **kwargs):
            iteration = guarded(self.starting, msg)
            result = start(msg, *args, **kwargs)
            guarded(self.started, result, bool(iteration))
            return result

        def range_end(range_id, *args, **kwargs):
            result = end(range_id, *args, **kwargs)
            guarded(self.finished, range_id)
            return result

        wrappers = (range_push, range_pop, range_start, range_end)
        for name, wrapper in zip(WRAPPED, wrappers):
            wrapper.__wrapped__ = originals[name]
            wrapper.__doc__ = getattr(originals[name], "__doc__", None)
        for name, wrapper in zip(WRAPPED, wrappers):
            setattr(nvtx, name, wrapper)
        self._installed = (nvtx, dict(zip(WRAPPED, wrappers)))
        return True

    def uninstall(self) -> None:
        """Puts the originals back (those the program has not replaced since) and stops
        watching."""
        self.on = False
        installed, self._installed = self._installed, None
        if installed is None:
            return
        nvtx, wrappers = installed
        for name, wrapper in wrappers.items():
            if getattr(nvtx, name, None) is wrapper:
                setattr(nvtx, name, wrapper.__wrapped__)
