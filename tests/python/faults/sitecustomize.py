"""Loaded after the companion's sitecustomize (it shadows this one): breaks the PyTorch that the
companion is about to see, as FAULTS (comma-separated) asks, between torch's own import and the
companion's callback. test_faults.py runs a training script under it."""

import ctypes
import importlib.abc
import importlib.util
import os
import sys

FAULTS = set(filter(None, os.environ.get("FAULTS", "").split(",")))


def boom(*args, **kwargs):
    raise RuntimeError("injected fault")


def boom_for_memfloor(function):
    """`function`, raising when the companion calls it (PyTorch's own calls go through)."""

    def call(*args, **kwargs):
        if sys._getframe(1).f_globals.get("__name__", "").startswith("memfloor"):
            boom()
        return function(*args, **kwargs)

    return call


class Unsignable:
    """A callable whose signature cannot be read."""

    __signature__ = property(boom)

    def __call__(self, *args, **kwargs):
        boom()


def pytorch2(torch):
    """What PyTorch 2 and a GPU would give: a global optimizer step post-hook, CUDA initialized
    (lazy calls run now), a caching allocator with a history that can be cleared."""
    import torch.optim.optimizer as optimizer

    hooks = []
    optimizer.register_optimizer_step_post_hook = (
        boom if "step_hook_raises" in FAULTS else hooks.append)
    step = torch.optim.SGD.step

    def stepped(self, *args, **kwargs):
        result = step(self, *args, **kwargs)
        for hook in list(hooks):
            hook(self, args, kwargs)
        return result

    torch.optim.SGD.step = stepped
    torch.cuda._lazy_call = lambda function: function()
    memory = torch.cuda.memory

    def record(enabled="all", context="alloc", stacks="python", max_entries=0,
               clear_history=False):
        if "record_raises" in FAULTS:
            boom()

    memory._record_memory_history = record
    memory.get_allocator_backend = lambda: "native"
    memory._snapshot = boom if "drain_raises" in FAULTS else (
        lambda: {"segments": [], "device_traces": [[]]})
    if "compiling_raises" in FAULTS:
        if not hasattr(torch, "compiler"):  # PyTorch 1.x
            torch.compiler = type(sys)("torch.compiler")
        torch.compiler.is_compiling = boom_for_memfloor(
            getattr(torch.compiler, "is_compiling", lambda: False))


def break_torch(torch):
    if "pytorch2" in FAULTS:
        pytorch2(torch)
    if "absent" in FAULTS:
        for owner, name in ((torch.cuda, "_lazy_call"), (torch.cuda.memory, "_snapshot"),
                            (torch.cuda.memory, "_record_memory_history"),
                            (torch.nn.modules.module, "register_module_forward_pre_hook"),
                            (torch.autograd, "_engine_run_backward"), (torch.cuda, "nvtx")):
            # Only what PyTorch itself does not call: torch.autograd.backward calls
            # _engine_run_backward by its global name from 2.3 on.
            used = getattr(getattr(owner, "backward", None), "__code__", None)
            if hasattr(owner, name) and name not in getattr(used, "co_names", ()):
                delattr(owner, name)
    if "unsignable" in FAULTS:
        torch.cuda.memory._record_memory_history = Unsignable()
    if "module_hook_raises" in FAULTS:
        torch.nn.modules.module.register_module_forward_pre_hook = boom
    if "census_raises" in FAULTS:
        import memfloor.census_schedule

        memfloor.census_schedule.take_census = boom
    if "load_hook" in FAULTS:  # as the CUDA driver would: the companion finds it loaded
        ctypes.CDLL(os.environ["CUDA_INJECTION64_PATH"])


class _Breaking(importlib.abc.Loader):
    def __init__(self, loader):
        self._loader = loader

    def create_module(self, spec):
        return self._loader.create_module(spec)

    def exec_module(self, module):
        self._loader.exec_module(module)
        break_torch(module)


class _Finder(importlib.abc.MetaPathFinder):
    """After the companion's watcher on sys.meta_path: its loader wraps this one's."""

    busy = False

    def find_spec(self, fullname, path, target=None):
        if fullname != "torch" or self.busy:
            return None
        self.busy = True
        try:
            spec = importlib.util.find_spec(fullname)
        finally:
            self.busy = False
        if spec is not None and spec.loader is not None:
            spec.loader = _Breaking(spec.loader)
        return spec


if FAULTS:
    sys.meta_path.insert(1, _Finder())
