"""The path in its model of the module whose forward runs, for the allocations it makes.

A global forward pre-hook and forward hook (torch.nn.modules.module) keep, per thread, the stack
of modules whose forward runs, each named by its path from the outermost one:
`GPT2LMHeadModel.transformer.h.3.attn`. The outermost module is named by its class; a wrapper that
only holds the model (torch.compile's OptimizedModule, DistributedDataParallel, DataParallel) is
named by the class of the model it wraps, and its attribute for it is left out of the paths.
Each change is told to `tell(path)` ("" for none), which passes it to the allocator's record: the
hook's per-thread module stack (memfloor_module_stack_v1) and PyTorch's memory history
(`_set_memory_metadata`), so every allocation carries its module as its outermost frame
(docs/design.md, "Module paths").

Backward runs on the autograd engine's threads, after the forward has returned. A module's forward
hook therefore puts a pre-hook on its output's autograd node, which tells the module's path on the
engine's thread when that node runs: the nodes that run after it, up to the next such node, are
the module's backward, mostly. backward_calls.py clears the path at each backward's roots.

The hooks return at once while torch.compile traces (the compiled graph is one call of the
outermost module), pass every argument and result through unchanged, and disable themselves on an
error, which they say once.
"""

import sys
import threading
import types
import warnings
import weakref
from typing import Callable, Dict, List, Optional, Tuple

MODULE_FILE = "<nn.Module>"  # the file of the frame that carries a module's path
METADATA_PREFIX = "module:"  # how the path is written into PyTorch's memory history
# Wrappers that only hold the model, by class name, and their attribute that holds it.
WRAPPERS = {"OptimizedModule": "_orig_mod", "DistributedDataParallel": "module",
            "DataParallel": "module", "FullyShardedDataParallel": "_fsdp_wrapped_module"}
HIDDEN = frozenset(("_orig_mod", "_fsdp_wrapped_module", "_checkpoint_wrapped_module"))
MAX_PATHS = 100_000  # modules named before the table is cleared (modules made on the fly)

Entry = Tuple[object, str]  # (module, path) on a thread's stack


def module_frame(path: str) -> Tuple[str, str, int]:
    """The frame that carries a module's path, outermost in an allocation's stack."""
    return (MODULE_FILE, path, 0)


def root_name(module) -> str:
    """An outermost module's name: its class, or the class of the model a wrapper holds."""
    attribute = WRAPPERS.get(type(module).__name__)
    inner = getattr(module, attribute, None) if attribute else None
    return type(inner if inner is not None else module).__name__


def joined(prefix: str, name: str) -> str:
    """A submodule's path from its parent's: the wrappers' attributes are left out."""
    parts = [part for part in name.split(".") if part and part not in HIDDEN]
    return ".".join([prefix] + parts) if parts else prefix


class ModulePaths:
    """Keeps each thread's module path and tells it to the allocator's record."""

    def __init__(self, torch: types.ModuleType, tell: Callable[[str], None]) -> None:
        self._torch = torch
        self._tell = tell
        self._local = threading.local()
        self._paths: Dict[int, Tuple[weakref.ref, str]] = {}  # id(module) -> (module, path)
        self._handles: List[object] = []
        self.always_called = False  # the forward hook runs when a forward raises (PyTorch 2)
        self._on = True
        compiler = getattr(torch, "compiler", None)
        self._compiling: Callable[[], bool] = getattr(compiler, "is_compiling", None) or \
            getattr(getattr(torch, "_dynamo", None), "is_compiling", None) or (lambda: False)
        self._grad_enabled = torch.is_grad_enabled
        self._tensor = torch.Tensor

    def install(self) -> bool:
        """Registers the global forward hooks; False where PyTorch has none."""
        modules = getattr(getattr(self._torch, "nn", None), "modules", None)
        module = getattr(modules, "module", None)
        register_pre = getattr(module, "register_module_forward_pre_hook", None)
        register_post = getattr(module, "register_module_forward_hook", None)
        if register_pre is None or register_post is None:
            return False
        # PyTorch's warning that a compiled module's call runs our hooks: the program never
        # asked for them (training_steps.py filters it for its own hook too; imported here, as
        # block_log.py, which training_steps.py reaches, imports this module).
        from memfloor.training_steps import COMPILED_MODULE_WARNING

        warnings.filterwarnings("ignore", message=COMPILED_MODULE_WARNING, category=UserWarning)
        self._handles.append(register_pre(self._pre))
        try:
            self._handles.append(register_post(self._post, always_call=True))
            self.always_called = True
        except TypeError:  # before PyTorch 2.0: not called when forward raises (_pre recovers)
            self._handles.append(register_post(self._post))
        return True

    def _stack(self) -> List[Entry]:
        stack = getattr(self._local, "stack", None)
        if stack is None:
            stack = self._local.stack = []
        return stack

    def _pre(self, module, args):  # noqa: ARG002: the hook's signature
        try:
            if not self._on or self._compiling():
                return None
            stack = self._stack()
            path = self._path(module, stack[-1] if stack else None)
            stack.append((module, path))
            self._tell(path)
        except Exception as error:  # noqa: BLE001: naming may never stop a forward
            self._fail(error)
        return None

    def _post(self, module, args, output):  # noqa: ARG002: the hook's signature
        try:
            if not self._on or self._compiling():
                return None
            stack = self._stack()
            path = ""
            while stack:  # down to this module's entry (one a raising forward left is dropped)
                entry = stack.pop()
                if entry[0] is module:
                    path = entry[1]
                    break
            self._tell(stack[-1][1] if stack else "")
            if path and self._grad_enabled():
                self._mark(output, path)
        except Exception as error:  # noqa: BLE001
            self._fail(error)
        return None

    def _path(self, module, parent: Optional[Entry]) -> str:
        known = self._paths.get(id(module))
        if known is not None and known[0]() is module:
            return known[1]
        if len(self._paths) >= MAX_PATHS:
            self._paths.clear()
        if parent is None:  # an outermost module: name its whole tree at once
            root = root_name(module)
            for name, sub in module.named_modules():
                self._paths.setdefault(id(sub), (weakref.ref(sub), joined(root, name)))
            self._paths[id(module)] = (weakref.ref(module), root)
            return root
        owner, prefix = parent  # a module the tree did not hold when it was named
        name = next((n for n, child in getattr(owner, "_modules", {}).items() if child is module),
                    None)
        path = joined(prefix, name) if name else f"{prefix}.({type(module).__name__})"
        self._paths[id(module)] = (weakref.ref(module), path)
        return path

    def _mark(self, output, path: str) -> None:
        """A pre-hook on the autograd node of the output's first tensor, unless an inner module
        marked that tensor already (a container returns its last child's output)."""
        if not isinstance(output, self._tensor):
            values = output.values() if isinstance(output, dict) else \
                output if isinstance(output, (tuple, list)) else ()
            output = next((v for v in values if isinstance(v, self._tensor)), None)
            if output is None:
                return
        node = output.grad_fn
        if node is None or not hasattr(node, "register_prehook"):
            return
        if self._marked() is output:
            return
        self._local.marked = weakref.ref(output)  # holding it would keep its graph alive
        tell = self._tell

        def named(grad_outputs):  # noqa: ARG001: the hook's signature
            try:
                tell(path)
            except Exception:  # noqa: BLE001: never stop a backward
                pass
            return None

        node.register_prehook(named)

    def _marked(self):
        """The output this thread's last module marked, if it lives."""
        marked = getattr(self._local, "marked", None)
        return marked() if marked is not None else None

    def clear_at(self, tensors) -> None:
        """Clears the engine thread's path when backward starts at these roots, unless a module
        made the root (the loss a model returns): what runs before the first module's node is no
        module's."""
        if not self._on:
            return
        tell = self._tell

        def cleared(grad_outputs):  # noqa: ARG001
            try:
                tell("")
            except Exception:  # noqa: BLE001
                pass
            return None

        try:
            marked = self._marked()
            for tensor in tensors if isinstance(tensors, (tuple, list)) else (tensors,):
                node = getattr(tensor, "grad_fn", None)
                if node is None or not hasattr(node, "register_prehook"):
                    continue
                if tensor is not marked:  # a module's output (a model's loss) keeps its name
                    node.register_prehook(cleared)
        except Exception as error:  # noqa: BLE001
            self._fail(error)

    def _fail(self, error: Exception) -> None:
        self._on = False
        self.remove()
        print(f"memfloor: module paths are off: {error!r}", file=sys.stderr)

    def remove(self) -> None:
        for handle in self._handles:
            try:
                handle.remove()
            except Exception:  # noqa: BLE001
                pass
        self._handles.clear()
