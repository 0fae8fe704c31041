"""The companion's start: what to record in this process, decided from `memfloor run`'s settings."""

import atexit
import os
import time
import types
from typing import Callable, Optional, Tuple

from memfloor import import_watch, run_settings
from memfloor.counts import count_of
from memfloor.guard import attempt, guarded

MS_PER_S = 1000.0
DEFAULT_FLUSH_MS = 1000

_recorder: Optional[object] = None  # the one recorder of this process (a TorchBlocks)


def _period_s() -> float:
    ms = count_of(os.environ.get(run_settings.FLUSH_MS, "")) or DEFAULT_FLUSH_MS
    return ms / MS_PER_S


def _drain() -> None:
    """The blocks so far into the trace, right before a census: both then say the same."""
    if _recorder is not None:
        _recorder.drain()


def _blocks_on() -> bool:
    return os.environ.get(run_settings.TORCH_BLOCKS, "1") != "0"


def _steps_on() -> bool:
    return os.environ.get(run_settings.STEPS, "1") != "0"


def _modules_on() -> bool:
    # Off unless asked for until bench/torch_rounds.sh has measured its cost on a GPU (docs/design.md,
    # "Module paths").
    return os.environ.get(run_settings.MODULES, "0") == "1"


def _census_on() -> bool:
    return not run_settings.census_off(os.environ)


def _hook_told() -> Callable[[Tuple], None]:
    """Tells the hook the stack of the backward now running (backward_calls.py), for the
    allocations it sees without frames; each caller's stack is interned once."""
    from memfloor.hook_api import find_hook

    hook, stacks = [], {}

    def tell(frames: Tuple) -> None:
        if not hook:
            found = find_hook()
            if found is None:
                return  # CUDA is not initialized yet: nothing to name
            hook.append(found)
        stack = 0
        if frames:
            stack = stacks.get(frames) or hook[0].python_stack(frames)
            stacks[frames] = stack
        hook[0].backward_stack(stack)

    return tell


def _module_teller(torch: types.ModuleType) -> Callable[[str], None]:
    """Tells the allocator's record the module path of the calling thread (module_paths.py):
    PyTorch's memory history while it records the blocks, else the hook."""
    from memfloor.hook_api import find_hook
    from memfloor.module_paths import METADATA_PREFIX, module_frame

    set_metadata = getattr(getattr(torch.cuda, "memory", None), "_set_memory_metadata", None)
    hook, stacks, metadata, retry = [], {"": 0}, {"": ""}, [0.0]

    def tell(path: str) -> None:
        if _recorder is not None and _recorder.recording:
            if set_metadata is not None:
                text = metadata.get(path)
                if text is None:
                    text = metadata[path] = METADATA_PREFIX + path
                set_metadata(text)
            return
        if not hook:
            now = time.monotonic()
            if now < retry[0]:
                return
            found = find_hook()
            if found is None or not found.has_module_stack:
                retry[0] = now + 1.0  # CUDA is not initialized yet: look again in a second
                return
            hook.append(found)
        stack = stacks.get(path)
        if stack is None:
            stack = stacks[path] = hook[0].python_stack((module_frame(path),))
        hook[0].module_stack(stack)

    return tell


def _module_paths(torch: types.ModuleType, backward) -> None:
    from memfloor.module_paths import ModulePaths

    paths = ModulePaths(torch, _module_teller(torch))
    if paths.install() and backward is not None:
        backward.on_roots = paths.clear_at


def _backward_calls(torch: types.ModuleType):
    from memfloor.backward_calls import BackwardCalls

    calls = BackwardCalls(_hook_told())
    return calls if calls.install(torch) else None


def _blocks(torch: types.ModuleType, backward) -> None:
    global _recorder
    from memfloor.torch_blocks import TorchBlocks

    recorder = TorchBlocks(torch, _period_s(), backward)
    if recorder.start():
        _recorder = recorder
        atexit.register(guarded("the last drain of PyTorch's allocator blocks", recorder.stop))


def _steps_and_censuses(torch: types.ModuleType) -> None:
    from memfloor.training_steps import TrainingSteps

    steps = TrainingSteps(torch, record=_steps_on(),
                          verbose=run_settings.verbose(os.environ))
    census = attempt("census", _census_schedule, torch, steps) if _census_on() else None
    if steps.start() and census is not None:  # PyTorch 2: censuses can be taken
        attempt("watching NVTX ranges", census.watch_ranges)


def _compiled_names(torch: types.ModuleType) -> None:
    from memfloor.compiled_names import CompiledNames
    from memfloor.hook_api import find_hook

    context = getattr(getattr(torch, "_guards", None), "CompileContext", None)
    current_compile_id = getattr(context, "current_compile_id", None) or (lambda: None)

    def tell(key: str, name: str) -> None:
        hook = find_hook()  # loaded: a graph is compiled after CUDA has started
        if hook is not None:
            hook.write_property(key, name)

    names = CompiledNames(tell, current_compile_id)
    import_watch.when_imported("torch._inductor.codecache",
                               guarded("naming compiled graphs", names.install))


def _census_schedule(torch: types.ModuleType, steps):
    from memfloor import census_schedule

    census = census_schedule.from_environment(torch, _drain)
    return census if census.attach(steps) else None


def _on_torch(torch: types.ModuleType) -> None:
    """Called at the end of the program's `import torch` (through `guarded`: an exception here
    would fail it). Each part is on its own: one that fails is said and the others run."""
    backward = None
    if run_settings.stacks_on(os.environ):
        backward = attempt("naming what backward allocates", _backward_calls, torch)
    if _blocks_on():
        attempt("recording PyTorch's allocator blocks", _blocks, torch, backward)
    if run_settings.stacks_on(os.environ) and _modules_on():
        attempt("naming the modules that allocate", _module_paths, torch, backward)
    if run_settings.stacks_on(os.environ):
        attempt("naming compiled graphs", _compiled_names, torch)
    if _steps_on() or _census_on():  # independent of the blocks: either allocator
        attempt("training steps", _steps_and_censuses, torch)


def start() -> bool:
    """Starts the companion when the process runs under `memfloor run` (the hook's settings are in
    the environment): PyTorch's blocks unless MEMFLOOR_TORCH_BLOCKS is 0, training steps unless
    MEMFLOOR_STEPS is 0, censuses unless MEMFLOOR_CENSUS is off. True if it is watching for torch."""
    if not os.environ.get(run_settings.OUTPUT_DIR) or not os.environ.get("CUDA_INJECTION64_PATH"):
        return False
    if not _blocks_on() and not _census_on() and not _steps_on():
        return False
    import_watch.when_imported("torch", guarded("the companion", _on_torch))
    return True


def recorder() -> Optional[object]:
    return _recorder
