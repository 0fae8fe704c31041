"""The program's training steps as it takes them, into the trace as step records.

A training step begins at its first forward (a module's forward with gradients on, the first since
the step before ended) and ends with its last optimizer step: several optimizers, a wrapper's step
and its inner one's, or the steps of gradient accumulation's micro-batches all fall in one, since
only the next step's first forward shows which optimizer step was the last. The time in between,
after the step, its zero_grad and whatever else the loop does there (logging, evaluation, loading
the next batch), is the idle window: where censuses are taken (census_schedule.py) and where the
analysis, when no marker names the iterations, measures the floor (docs/design.md, "Iterations").

How it is seen, at the cost of a few calls per step:
- optimizer steps through PyTorch 2's global step hook (register_optimizer_step_post_hook);
- the first forward through a global module forward pre-hook that is registered only from an
  optimizer step to the next forward with gradients on, and removes itself there: every other
  module call runs without it. A forward traced by torch.compile's dynamo sees it return at once.

A step's begin is written at its first optimizer step (a process that never steps an optimizer,
an inference script, writes no step record) and its end at the next step's first forward or at
the exit. Nothing here may stop the program: every failure is one stderr line and turns step
records off; the program runs on."""

import atexit
import os
import threading
import time
import types
import warnings
from typing import Callable, List, Optional

from memfloor.hook_api import STEP_BEGIN, STEP_END, Hook, find_hook
from memfloor.guard import say
from memfloor.torch_blocks import step_post_hook_registrar

# Module calls without gradients (an evaluation, an inference script) before the first training
# forward, after which the pre-hook leaves until the first optimizer step: a program that only
# infers pays for no more of them.
MAX_CALLS_BEFORE_TRAINING = 10_000
# PyTorch warns once when a torch.compile'd module is called while a global module hook is
# registered: the one the companion registers between steps. The program never asked for that
# hook, so it must not see the warning (nor fail on it under -W error).
COMPILED_MODULE_WARNING = r"Using `torch\.compile\(module\)` when there are global hooks"

Listener = Callable[[int], None]


def _forward_pre_hook_registrar(torch: types.ModuleType):
    module = getattr(getattr(getattr(torch, "nn", None), "modules", None), "module", None)
    return getattr(module, "register_module_forward_pre_hook", None)


def _compiling(torch: types.ModuleType) -> Callable[[], bool]:
    """torch.compiler.is_compiling where PyTorch has it (True while dynamo traces)."""
    compiling = getattr(getattr(torch, "compiler", None), "is_compiling", None)
    return compiling if callable(compiling) else (lambda: False)


class TrainingSteps:
    """The one step clock of a process: counts training steps, writes their step records and tells
    its listeners when an optimizer step was taken (`stepped(step)`) and when an idle window is
    there to use (`idle(step)`: at the next first forward, before it runs, and at the exit)."""

    def __init__(self, torch: types.ModuleType, record: bool = True,
                 find: Callable[[], Optional[Hook]] = find_hook,
                 clock: Callable[[], int] = time.time_ns, verbose: bool = False) -> None:
        self._torch = torch
        self._record = record
        self._find = find
        self._clock = clock
        self._verbose = verbose
        self._hook: Optional[Hook] = None
        self._lock = threading.RLock()
        self._register_pre_hook = _forward_pre_hook_registrar(torch)
        self._compiling = _compiling(torch)
        grad_enabled = getattr(torch, "is_grad_enabled", None)
        self._grad_enabled = grad_enabled if callable(grad_enabled) else (lambda: True)
        self._handle = None  # the forward pre-hook's, while it is registered
        self._calls = 0  # module calls without gradients before the first training forward
        self.on = True
        self.step = 0  # the training step begun last
        self.optimizer_steps = 0  # optimizer steps taken in the open step
        self._open = False  # a step has begun (its first forward came) and not ended
        self._begin_ns: Optional[int] = None  # the open step's first forward, if it was seen
        self._begin_written = False
        self._last_step_ns = 0
        self.stepped: List[Listener] = []
        self.idle: List[Listener] = []

    @property
    def watches_forwards(self) -> bool:
        return self._register_pre_hook is not None

    # -- set-up ------------------------------------------------------------------------------

    def start(self) -> bool:
        """Registers the hooks when PyTorch initializes CUDA (now if it has); False if PyTorch has
        no global optimizer step hook (PyTorch 1.x)."""
        if step_post_hook_registrar(self._torch) is None:
            if self._verbose:
                say(f"training steps need PyTorch 2 (a global optimizer step hook); PyTorch "
                    f"{getattr(self._torch, '__version__', '?')} has none")
            return False
        lazy_call = getattr(getattr(self._torch, "cuda", None), "_lazy_call", None)
        if lazy_call is not None:
            lazy_call(self._register)  # inside PyTorch's CUDA initialization: must not raise
        else:
            self._register()
        return True

    def _register(self) -> None:
        try:
            step_post_hook_registrar(self._torch)(self._after_optimizer_step)
            warnings.filterwarnings("ignore", message=COMPILED_MODULE_WARNING,
                                    category=UserWarning)
            self._arm()
            atexit.register(self.finish)
            os.register_at_fork(after_in_child=self._off)  # nothing to record in a forked child
        except Exception as error:  # noqa: BLE001
            self._fail(error)

    def _off(self) -> None:
        self.on = False
        self._handle = None  # a forked child's copy: the parent's registration is not ours

    def _fail(self, error: BaseException) -> None:
        self.on = False
        try:
            self._disarm()
        except Exception:  # noqa: BLE001 - the hook stays, and returns at once while off
            pass
        say(f"training steps failed: {error!r}; no more step records in this process")

    # -- the first forward ---------------------------------------------------------------------

    def _arm(self) -> None:
        if self._handle is None and self.on and self._register_pre_hook is not None:
            self._handle = self._register_pre_hook(self._pre_forward)

    def _disarm(self) -> None:
        handle, self._handle = self._handle, None
        if handle is not None:
            handle.remove()

    def _pre_forward(self, module, args):  # noqa: ARG002: a forward pre-hook's signature
        try:  # inside the program's forward: nothing may come out of here
            if not self.on or self._compiling():
                return None  # traced by dynamo: nothing to do at run time
            if not self._grad_enabled():
                if self.step == 0 and self.optimizer_steps == 0:
                    self._calls += 1
                    if self._calls > MAX_CALLS_BEFORE_TRAINING:
                        with self._lock:
                            self._disarm()
                return None
            self.first_forward()
        except Exception as error:  # noqa: BLE001
            self._fail(error)
        return None

    def first_forward(self) -> None:
        """A training forward, the first since the last optimizer step: the step before ends (its
        idle window is now, before the forward runs) and this one begins."""
        with self._lock:
            if self._handle is None and self._register_pre_hook is not None:
                return  # another thread's forward came first
            self._disarm()
            self._idle(self._end_step())
            self.step += 1
            self.optimizer_steps = 0
            self._open = True
            self._begin_ns = self._clock()  # after the census: it lies in the window before
            self._begin_written = False

    # -- optimizer steps -------------------------------------------------------------------------

    def _after_optimizer_step(self, optimizer, args, kwargs) -> None:  # noqa: ARG002
        try:
            self.optimizer_stepped()
        except Exception as error:  # noqa: BLE001
            self._fail(error)

    def optimizer_stepped(self) -> None:
        """An optimizer's step has ended, in the program's thread."""
        with self._lock:
            self._last_step_ns = self._clock()
            if not self._open:  # its first forward was not seen: a step without a begin
                self.step += 1
                self._open = True
                self._begin_ns = None
                self._begin_written = False
            self.optimizer_steps += 1
            if self._begin_ns is not None and not self._begin_written:
                self._write(STEP_BEGIN, self._begin_ns, 0)
                self._begin_written = True
            self._arm()
            for listener in list(self.stepped):
                listener(self.step)
            if not self.watches_forwards:  # no forward to wait for: the window is now, and
                self._idle(self.step)  # each optimizer step is a training step
                self._open = False

    # -- ends ------------------------------------------------------------------------------------

    def _end_step(self) -> int:
        """Ends the open step at its last optimizer step; the step that ended (0 if none)."""
        if not self._open:
            return 0
        self._open = False
        if self._begin_written and self.optimizer_steps > 0:
            self._write(STEP_END, self._last_step_ns, self.optimizer_steps)
        return self.step if self.optimizer_steps > 0 else 0

    def _idle(self, ended: int) -> None:
        """Step `ended` (0: none) has ended and its idle window is now: the listeners hear it."""
        if ended:
            for listener in list(self.idle):
                listener(ended)

    def finish(self) -> None:
        """At the exit: the last step ends, and its idle window is the exit's."""
        try:
            with self._lock:
                if not self.on:
                    return
                self._disarm()
                self._idle(self._end_step())
                self.on = False
        except Exception as error:  # noqa: BLE001
            self._fail(error)

    def _write(self, phase: int, unix_ns: int, optimizer_steps: int) -> None:
        if not self._record or not self.on:
            return
        if self._hook is None:
            hook = self._find()
            if hook is None or not hook.has_step:  # not traced, or a hook older than steps
                if hook is not None and self._verbose:
                    say("the loaded hook records no training steps (older than the companion)")
                self._record = False
                return
            self._hook = hook
        self._hook.step(phase, self.step, optimizer_steps, unix_ns)
