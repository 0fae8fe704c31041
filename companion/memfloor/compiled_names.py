"""What torch.compile's generated code was compiled from, for the sites it allocates in.

Inductor writes each compiled graph's code to a file named by its hash and loads it through
torch._inductor.codecache.PyCodeCache.load_by_key_path; a frame of that file says nothing to the
user. The companion wraps the loader: when a graph's code comes back (a module with a `call`), it
names the file after what dynamo was compiling, found on the loader's stack:
- a model compiled whole (`torch.compile(model)`): the model's class, from OptimizedModule's call;
- a function (`torch.compile(step)`): its qualified name, the code dynamo's `_compile` was given.
A graph AOTAutograd compiles for backward (its first line: `# AOT ID: ['0_backward']`) is compiled
at the first backward, away from dynamo: it takes its forward's name, by their compile id, and
" backward". The hook writes the name into the trace (property "python.compiled:<file>"); the
analysis writes the graph's frames `<compiled TransformerEncoder>:873 in Runner.call`
(docs/design.md, "Site names"). All of it runs only while a graph is compiled, never per step;
the loader's arguments, result and exceptions pass through unchanged.
"""

import re
import sys
import types
from typing import Callable, Dict, Optional

from memfloor.guard import guarded

PROPERTY_PREFIX = "python.compiled:"
MAX_NAMES = 10_000  # compile ids remembered for their backward (recompiles make more)
_AOT_ID = re.compile(r"# AOT ID: \['(\d+)_(forward|backward|inference)'\]")
_DYNAMO_COMPILE = ("torch/_dynamo/convert_frame.py", "_compile")
_OPTIMIZED_CALL = ("torch/_dynamo/eval_frame.py", "__call__")


def graph_kind(path: str) -> str:
    """forward, backward or inference, from the file's AOT ID line; "" without one."""
    with open(path, encoding="utf-8", errors="replace") as file:
        head = file.read(512)
    found = _AOT_ID.search(head)
    return found.group(2) if found else ""


def _is(code: types.CodeType, where) -> bool:
    return code.co_name == where[1] and code.co_filename.replace("\\", "/").endswith(where[0])


def _is_torch(code: types.CodeType) -> bool:
    return "/torch/" in code.co_filename.replace("\\", "/")


def compiled_source(frame: Optional[types.FrameType]) -> str:
    """What dynamo compiles, from `frame` (the loader's caller) outwards: a model's class, a
    function's qualified name, or "" when neither is on the stack."""
    function = ""
    while frame is not None:
        code = frame.f_code
        if not function and _is(code, _DYNAMO_COMPILE):
            compiled = frame.f_locals.get("code")
            if isinstance(compiled, types.CodeType):
                if not _is_torch(compiled):  # the user's function, not a wrapper of PyTorch's
                    return getattr(compiled, "co_qualname", compiled.co_name)
                function = getattr(compiled, "co_qualname", compiled.co_name)
        if _is(code, _OPTIMIZED_CALL):
            model = getattr(frame.f_locals.get("self"), "_orig_mod", None)
            if model is not None:
                return type(model).__qualname__
        frame = frame.f_back
    return function


class CompiledNames:
    """Wraps Inductor's loader; tells `tell(property key, name)` each graph file's name."""

    def __init__(self, tell: Callable[[str, str], None],
                 current_compile_id: Callable[[], object]) -> None:
        self._tell = tell
        self._compile_id = current_compile_id  # torch._guards.CompileContext's
        self._names: Dict[str, str] = {}  # compile id -> its forward's name

    def install(self, codecache: types.ModuleType) -> bool:
        """Wraps PyCodeCache.load_by_key_path; False where Inductor has none."""
        cache = getattr(codecache, "PyCodeCache", None)
        load = getattr(cache, "load_by_key_path", None)
        if load is None or getattr(load, "__memfloor_wrapped__", False):
            return False
        original = load.__func__ if isinstance(load, types.MethodType) else load
        loaded = guarded("naming compiled graphs", self.loaded)

        def load_by_key_path(cls, key, path, *args, **kwargs):
            module = original(cls, key, path, *args, **kwargs)
            loaded(module, path, sys._getframe(1))
            return module

        load_by_key_path.__memfloor_wrapped__ = True
        load_by_key_path.__wrapped__ = original
        load_by_key_path.__doc__ = original.__doc__
        cache.load_by_key_path = classmethod(load_by_key_path)
        return True

    def loaded(self, module: types.ModuleType, path: str, caller: Optional[types.FrameType]) -> None:
        """Names a graph's file (a kernel's file, without `call`, names no allocation)."""
        if not hasattr(module, "call") or not isinstance(path, str):
            return
        kind = graph_kind(path)
        compile_id = self._compile_id()
        if kind == "backward":
            forward = self._names.get(str(compile_id)) if compile_id is not None else None
            name = f"{forward} backward" if forward else ""
        else:
            name = compiled_source(caller)
            if name and compile_id is not None:
                if len(self._names) >= MAX_NAMES:
                    self._names.clear()
                self._names[str(compile_id)] = name
        if name:
            self._tell(PROPERTY_PREFIX + path, name)
