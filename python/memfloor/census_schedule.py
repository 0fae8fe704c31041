"""When the companion takes a census (census.py) and where it sends it: in the program's thread,
in the idle window after the optimizer steps MEMFLOOR_CENSUS names: right after the step (PyTorch
2's global step hook), or, when the step ran inside an iteration range (iteration_ranges.py), when
that range closes. One census record per device that has storages goes to the hook
(memfloor_census_v1), so the trace says which Python paths hold the blocks of that window."""

import os
import re
import time
import types
from dataclasses import dataclass
from typing import Callable, Dict, FrozenSet, List, Optional

from memfloor.census import Census, StorageEntry, take_census
from memfloor.hook_api import CensusV1, Hook, find_hook
from memfloor.iteration_ranges import IterationRanges
from memfloor.torch_blocks import say, step_post_hook_registrar

AUTO, EVERY, OFF, LISTED = "auto", "every", "off", "listed"
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
        if not item.isdigit() or int(item) == 0:
            raise ValueError("expected auto, every, off or a comma list of optimizer steps "
                             f"counted from 1 (such as 2,10), not {item!r} in it")
        steps.add(int(item))
    return Schedule(LISTED, frozenset(steps))


def schedule_from_environment(environ=os.environ) -> Schedule:
    """MEMFLOOR_CENSUS's schedule (auto when unset); a bad value is said once and is auto."""
    text = environ.get("MEMFLOOR_CENSUS", "") or AUTO
    try:
        return parse_schedule(text)
    except ValueError as error:
        say(f"MEMFLOOR_CENSUS={text}: {error}; using auto")
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
    """Counts optimizer steps and takes a census after the scheduled ones. Whatever fails in a
    census is said once and turns censuses off: the program never fails because of one."""

    def __init__(self, torch: types.ModuleType, schedule: Schedule, device_type: str = "cuda",
                 drain: Optional[Callable[[], None]] = None,
                 find: Callable[[], Optional[Hook]] = find_hook, verbose: bool = False,
                 ranges: Optional[IterationRanges] = None) -> None:
        self._torch = torch
        self._schedule = schedule
        self._device_type = device_type
        self._drain = drain
        self._find = find
        self._hook: Optional[Hook] = None
        self._verbose = verbose
        self.steps = 0
        self.taken = 0
        self.on = schedule.mode != OFF
        self.pending = False  # a census waits for the iteration range around its step to close
        self._ranges = ranges
        if ranges is not None:
            ranges.on_end = self.iteration_ended

    def start(self) -> bool:
        """Registers the step handler when PyTorch initializes CUDA (now if it has, or if the
        census counts another device type); False if censuses are off."""
        if not self.on:
            return False
        lazy_call = getattr(getattr(self._torch, "cuda", None), "_lazy_call", None)
        if self._device_type == "cuda" and lazy_call is not None:
            lazy_call(self._register)  # inside PyTorch's CUDA initialization: must not raise
        else:
            self._register()
        return True

    def _register(self) -> None:
        try:
            register = step_post_hook_registrar(self._torch)
            if register is None:
                if self._verbose:
                    say(f"censuses need PyTorch 2 (a global optimizer step hook); PyTorch "
                        f"{getattr(self._torch, '__version__', '?')} takes none")
                return
            register(self._on_step)
            os.register_at_fork(after_in_child=self._off)  # no hook in a forked child
        except Exception as error:  # noqa: BLE001
            self._fail(error)

    def _on_step(self, optimizer, args, kwargs) -> None:  # noqa: ARG002: the hook's signature
        self.after_step()

    def _off(self) -> None:
        self.on = False

    def _fail(self, error: BaseException) -> None:
        self.on = False
        say(f"census failed: {error!r}; no more censuses in this process")

    def after_step(self) -> None:
        """In the program's thread, after an optimizer's step: the start of an idle window."""
        self.steps += 1
        if self.on and self._schedule.due(self.steps):
            if self._ranges is not None and self._ranges.inside():
                self.pending = True
            else:
                self._take_safely()

    def iteration_ended(self) -> None:
        """No iteration range is open any more: the idle window of a waiting census."""
        if self.pending:
            self.pending = False
            if self.on:
                self._take_safely()

    def _take_safely(self) -> None:
        try:
            self.take()
        except Exception as error:  # noqa: BLE001
            self._fail(error)

    def _ready_hook(self) -> Optional[Hook]:
        if self._hook is None:
            self._hook = self._find()
            if self._hook is not None and not self._hook.has_census:
                self.on = False
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


def ranges_from_environment(torch: types.ModuleType, environ=os.environ) -> Optional[IterationRanges]:
    """torch.cuda.nvtx's ranges watched with the pattern in MEMFLOOR_CENSUS_RANGES (every
    outermost range when it is unset); None when there is no such module. A pattern Python cannot
    read is said once and every outermost range counts."""
    nvtx = getattr(getattr(torch, "cuda", None), "nvtx", None)
    if nvtx is None:
        return None
    pattern = environ.get("MEMFLOOR_CENSUS_RANGES", "")
    try:
        ranges = IterationRanges(pattern)
    except re.error as error:
        say(f"MEMFLOOR_CENSUS_RANGES={pattern}: {error}; every outermost range is an iteration")
        ranges = IterationRanges(None)
    return ranges if ranges.install(nvtx) else None


def from_environment(torch: types.ModuleType,
                     drain: Optional[Callable[[], None]]) -> CensusSchedule:
    """The schedule `memfloor run` asked for (MEMFLOOR_CENSUS, MEMFLOOR_CENSUS_DEVICE,
    MEMFLOOR_CENSUS_RANGES, MEMFLOOR_VERBOSE)."""
    schedule = schedule_from_environment()
    ranges = ranges_from_environment(torch) if schedule.mode != OFF else None
    return CensusSchedule(torch, schedule,
                          device_type=os.environ.get("MEMFLOOR_CENSUS_DEVICE", "") or "cuda",
                          drain=drain, verbose=os.environ.get("MEMFLOOR_VERBOSE") == "1",
                          ranges=ranges)
