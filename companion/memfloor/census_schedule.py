"""When the companion takes a census (census.py) and where it sends it: in the program's thread,
in the idle window after the training steps MEMFLOOR_CENSUS names, as the analysis defines it:
after the step and its zero_grad, at the next step's first forward before it runs
(training_steps.py) or at the exit; when the step ran inside an iteration range
(nvtx_iterations.py), once that range has closed. One census record per device that has storages
goes to the hook (memfloor_census_v1), so the trace says which Python paths hold the blocks of
that window."""

import os
import time
import types
from dataclasses import dataclass
from typing import Callable, Dict, FrozenSet, List, Optional

from memfloor.census import Census, StorageEntry, take_census
from memfloor import run_settings
from memfloor.counts import count_of
from memfloor.hook_api import CensusV1, Hook, find_hook
from memfloor.nvtx_iterations import NvtxIterations
from memfloor.guard import say
from memfloor.training_steps import TrainingSteps

AUTO, EVERY, OFF = run_settings.AUTO, run_settings.EVERY, run_settings.OFF
LISTED = "listed"
FIRST_AUTO_STEP = 2  # auto: after steps 2, 4, 8, 16...
NS_PER_S = 1_000_000_000
U32_MAX = 0xFFFFFFFF


@dataclass(frozen=True)
class Schedule:
    """At which optimizer steps (counted from 1) a census is taken."""

    mode: str  # AUTO, EVERY, OFF or LISTED
    steps: FrozenSet[int] = frozenset()  # LISTED: these

    def due(self, step: int) -> bool:
        if self.mode == AUTO:  # powers of two: the last census is at least halfway through a run
            return step >= FIRST_AUTO_STEP and step & (step - 1) == 0
        if self.mode == EVERY:
            return True
        return step in self.steps


def parse_schedule(text: str) -> Schedule:
    """auto, every, off or a comma list of step numbers (`3,10`); ValueError says what is wrong."""
    text = text.strip()
    if text in (AUTO, EVERY, OFF):
        return Schedule(text)
    steps = set()
    for item in text.split(","):
        item = item.strip()
        step = count_of(item)
        if not step:
            raise ValueError("expected auto, every, off or a comma list of optimizer steps "
                             f"counted from 1 (such as 2,10), not {item!r} in it")
        steps.add(step)
    return Schedule(LISTED, frozenset(steps))


def schedule_from_environment(environ=os.environ) -> Schedule:
    """MEMFLOOR_CENSUS's schedule (auto when unset); a bad value is said once and is auto."""
    text = environ.get(run_settings.CENSUS, "") or AUTO
    try:
        return parse_schedule(text)
    except ValueError as error:
        say(f"{run_settings.CENSUS}={text}: {error}; using auto")
        return Schedule(AUTO)


def by_device(storages: List[StorageEntry]) -> Dict[int, List[StorageEntry]]:
    """The storages of each device index that has any, in device order."""
    groups: Dict[int, List[StorageEntry]] = {}
    for entry in storages:
        groups.setdefault(entry.device_index, []).append(entry)
    return dict(sorted(groups.items()))


def send(hook: Hook, census: Census, unix_ns: int, step: int) -> int:
    """One census record per device into the hook; how many devices had storages."""
    groups = by_device(census.storages)
    for device, entries in groups.items():
        header = CensusV1(unix_ns=unix_ns, objects=census.objects,
                          duration_ns=int(census.seconds * NS_PER_S), device=device,
                          step=min(step, U32_MAX), complete=int(census.complete))
        hook.census(header, entries)
    return len(groups)


class CensusSchedule:
    """Takes a census after the scheduled training steps, in their idle window: the step clock
    (training_steps.TrainingSteps) says when a step's optimizer stepped and when its window is
    there (the next step's first forward, before it runs; the exit); an iteration range open then
    defers it to the range's end, and an iteration range that is about to begin takes it first.
    Whatever fails in a census is said once and turns censuses off: the program never fails
    because of one."""

    def __init__(self, torch: types.ModuleType, schedule: Schedule, device_type: str = "cuda",
                 drain: Optional[Callable[[], None]] = None,
                 find: Callable[[], Optional[Hook]] = find_hook, verbose: bool = False,
                 ranges: Optional[NvtxIterations] = None) -> None:
        self._torch = torch
        self._schedule = schedule
        self._device_type = device_type
        self._drain = drain
        self._find = find
        self._hook: Optional[Hook] = None
        self._verbose = verbose
        self.steps = 0  # the training step of the last optimizer step
        self.taken = 0
        self.on = schedule.mode != OFF
        self.pending = 0  # the step whose census waits for its idle window, 0 if none
        self._ranges: Optional[NvtxIterations] = None
        if ranges is not None:
            self._wait_for(ranges)

    def _wait_for(self, ranges: NvtxIterations) -> None:
        self._ranges = ranges
        ranges.on_end = self.idle
        ranges.on_begin = self.idle

    def watch_ranges(self, environ=os.environ) -> bool:
        """Waits for the program's iteration ranges (ranges_from_environment): only while
        censuses are on and the hook, if loaded, records them, so that torch.cuda.nvtx is not
        wrapped for nothing. True when watching."""
        if not self.on or self._ranges is not None:
            return False
        hook = self._find()
        if hook is not None and not hook.has_census:
            return False
        ranges = ranges_from_environment(self._torch, environ, self._find)
        if ranges is None:
            return False
        self._wait_for(ranges)
        return True

    def _unwatch(self) -> None:
        if self._ranges is not None:
            self._ranges.uninstall()

    def attach(self, steps: TrainingSteps) -> bool:
        """Follows the process' step clock; False if censuses are off."""
        if not self.on:
            return False
        steps.stepped.append(self.stepped)
        steps.idle.append(self.idle)
        os.register_at_fork(after_in_child=self._off)  # no census in a forked child
        return True

    def _off(self) -> None:
        self.on = False

    def _fail(self, error: BaseException) -> None:
        self.on = False
        self._unwatch()
        say(f"census failed: {error!r}; no more censuses in this process")

    def stepped(self, step: int) -> None:
        """An optimizer step of training step `step` has ended."""
        self.steps = step
        if self.on and self._schedule.due(step):
            self.pending = step

    def idle(self, step: int = 0) -> None:  # noqa: ARG002: the step clock's listener signature
        """A moment of an idle window: the census waiting, if any, unless an iteration range is
        open (its end is the window's start)."""
        if not self.pending or not self.on:
            return
        if self._ranges is not None and self._ranges.inside():
            return
        self.pending = 0
        try:
            self.take()
        except Exception as error:  # noqa: BLE001
            self._fail(error)

    def _ready_hook(self) -> Optional[Hook]:
        if self._hook is None:
            self._hook = self._find()
            if self._hook is not None and not self._hook.has_census:
                self.on = False
                self._unwatch()
                if self._verbose:
                    say("the loaded hook records no census (older than the companion)")
                return None
        return self._hook

    def take(self) -> None:
        """One census now, with the allocator's blocks drained first so that both describe the
        same moment. Nothing when the hook is not loaded (yet)."""
        hook = self._ready_hook()
        if hook is None:
            return
        if self._drain is not None:
            self._drain()
        unix_ns = time.time_ns()
        census = take_census(self._torch, self._device_type)
        devices = send(hook, census, unix_ns, self.steps)
        self.taken += 1
        if self._verbose:
            say(f"census after step {self.steps}: {len(census.storages)} storages on "
                f"{devices} device(s), {census.held_bytes} bytes held, {census.objects} objects "
                f"walked{'' if census.complete else ' (stopped at the limit)'}, "
                f"{census.seconds:.2f} s")


def ranges_from_environment(torch: types.ModuleType, environ=os.environ,
                            find: Callable[[], Optional[Hook]] = find_hook
                            ) -> Optional[NvtxIterations]:
    """torch.cuda.nvtx's ranges watched with the pattern in MEMFLOOR_CENSUS_RANGES (every
    outermost range when it is unset), matched by the hook (nvtx_iterations.py); None when there
    is no such module, or when the iteration ranges are another NVTX domain's
    (MEMFLOOR_ITERATION_DOMAIN)."""
    nvtx = getattr(getattr(torch, "cuda", None), "nvtx", None)
    if nvtx is None or environ.get(run_settings.ITERATION_DOMAIN, ""):
        return None  # torch.cuda.nvtx's ranges are the default domain's: not iterations then
    ranges = NvtxIterations(environ.get(run_settings.CENSUS_RANGES, ""), find)
    return ranges if ranges.install(nvtx) else None


def from_environment(torch: types.ModuleType,
                     drain: Optional[Callable[[], None]]) -> CensusSchedule:
    """The schedule `memfloor run` asked for (MEMFLOOR_CENSUS, MEMFLOOR_CENSUS_DEVICE,
    MEMFLOOR_VERBOSE); watch_ranges adds MEMFLOOR_CENSUS_RANGES and MEMFLOOR_ITERATION_DOMAIN."""
    return CensusSchedule(torch, schedule_from_environment(),
                          device_type=os.environ.get(run_settings.CENSUS_DEVICE, "") or "cuda",
                          drain=drain, verbose=run_settings.verbose(os.environ))
