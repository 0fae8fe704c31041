"""Who called backward, for the allocations that backward makes.

The autograd engine runs a backward's operators on its own threads, which run no Python, so what
they allocate has no frames of its own: PyTorch's memory history records none, and the hook finds
none. Every backward, `loss.backward()` and `torch.autograd.grad` alike, goes through
torch.autograd's `_engine_run_backward` (PyTorch 2.3 on), which the companion wraps: the wrapper
notes the caller's frames and the time the call ran, and tells the hook, so that an allocation
without frames made meanwhile is named `backward <- the caller's line` (docs/design.md, "Site
names"). The wrapper passes every argument, result and exception through unchanged.
"""

import sys
import threading
import time
import types
from typing import Callable, List, Optional, Tuple

from memfloor.hook_api import Frame

BACKWARD_FRAME: Frame = ("", "backward", 0)  # the innermost frame of such a stack
MAX_FRAMES = 128
MAX_CALLS = 256  # backward calls kept between two drains (the oldest are dropped)


def caller_frames(frame: Optional[types.FrameType]) -> Tuple[Frame, ...]:
    """The frames from `frame` outwards, innermost first, as (file, qualified name, line)."""
    out = []
    while frame is not None and len(out) < MAX_FRAMES:
        code = frame.f_code
        out.append((code.co_filename, getattr(code, "co_qualname", code.co_name), frame.f_lineno))
        frame = frame.f_back
    return tuple(out)


class BackwardCalls:
    """The backward calls of a process: (begin ns, end ns or 0 while running, frames)."""

    def __init__(self, on_call: Optional[Callable[[Tuple[Frame, ...]], None]] = None) -> None:
        self._lock = threading.Lock()
        self._calls: List[list] = []
        self._on_call = on_call  # told the frames at a call's begin, () at its end
        self.on_roots: Optional[Callable[[object], None]] = None  # told a call's root tensors

    def install(self, torch: types.ModuleType) -> bool:
        """Wraps torch.autograd._engine_run_backward; False where PyTorch has none."""
        autograd = getattr(torch, "autograd", None)
        original = getattr(autograd, "_engine_run_backward", None)
        if original is None or getattr(original, "__memfloor_wrapped__", False):
            return False
        calls = self

        def _engine_run_backward(*args, **kwargs):
            call = calls.begin(sys._getframe(1))
            if calls.on_roots is not None and args:
                calls.on_roots(args[0])  # t_outputs
            try:
                return original(*args, **kwargs)
            finally:
                calls.end(call)

        _engine_run_backward.__memfloor_wrapped__ = True
        _engine_run_backward.__wrapped__ = original
        _engine_run_backward.__doc__ = original.__doc__
        autograd._engine_run_backward = _engine_run_backward
        return True

    def begin(self, frame: Optional[types.FrameType]) -> Optional[list]:
        try:
            frames = (BACKWARD_FRAME,) + caller_frames(frame)
            call = [time.time_ns(), 0, frames]
            with self._lock:
                self._calls.append(call)
                del self._calls[:-MAX_CALLS]
        except Exception:  # noqa: BLE001: naming sites may never stop a backward
            return None
        self._tell(frames)
        return call

    def end(self, call: Optional[list]) -> None:
        if call is not None:
            call[1] = time.time_ns()
            self._tell(())

    def _tell(self, frames: Tuple[Frame, ...]) -> None:
        if self._on_call is None:
            return
        try:
            self._on_call(frames)
        except Exception as error:  # noqa: BLE001
            self._on_call = None  # said once; the history's blocks are still named
            print(f"memfloor: cannot tell the hook who called backward: {error!r}",
                  file=sys.stderr)

    def frames_at(self, when_ns: int) -> Tuple[Frame, ...]:
        """The frames of the backward call running at when_ns, the latest begun; () if none."""
        with self._lock:
            for begin, end, frames in reversed(self._calls):
                if begin <= when_ns and (end == 0 or when_ns <= end):
                    return frames
        return ()

    def forget_before(self, when_ns: int) -> None:
        """Drops the calls that ended before when_ns (a drain has taken their entries)."""
        with self._lock:
            self._calls = [c for c in self._calls if c[1] == 0 or c[1] >= when_ns]
