"""What the code shows about device memory without types: heavy names (configured patterns) and
tensor-producing expressions (torch factories and ops, tensor methods, arithmetic on tensors)."""

from __future__ import annotations

import ast
import re
from typing import Callable, Dict, List, Optional

# torch.<name>(...) that return tensors (factories and the common ops); torch.nn.functional.* all do.
TORCH_TENSOR_FUNCTIONS = frozenset("""
empty empty_like empty_strided zeros zeros_like ones ones_like full full_like rand rand_like randn
randn_like randint randint_like randperm arange linspace logspace eye tensor as_tensor asarray
as_strided from_numpy frombuffer cat concat concatenate stack hstack vstack dstack matmul mm bmm
baddbmm addmm einsum where clone masked_select index_select gather scatter narrow flatten reshape
softmax log_softmax relu sigmoid tanh exp log sum mean add mul sub div cumsum outer tril triu
""".split())
# t.<name>(...) that return a tensor when t is one.
TENSOR_METHODS = frozenset("""
to cuda cpu detach clone contiguous view view_as reshape reshape_as float half bfloat16 double
pin_memory expand expand_as repeat transpose permute flatten unflatten unsqueeze squeeze new_empty
new_zeros new_ones new_full new_tensor narrow matmul type_as masked_fill index_select softmax
""".split())
_TORCH_MODULES = ("torch", "torch.nn.functional")
# Methods of Python's builtin types (dict, list, set, str, bytes), of tensors and of the standard
# library's synchronisation objects (futures, events, queues, threads, streams). A call of one of
# these names on an object whose class the code does not show is the builtin's or the library's,
# not a program method of the same name: a program class that defines `values()` does not make
# every `d.values()` a use of it (docs/checker.md, "Receivers and their classes").
LIBRARY_METHODS = frozenset(n for n in dir(dict) + dir(list) + dir(set) + dir(str) + dir(bytes) + """
view view_as reshape reshape_as to cuda cpu detach detach_ clone contiguous size numel dim item
tolist numpy float half bfloat16 double int long bool type type_as sum mean max min norm abs
copy_ zero_ fill_ add_ mul_ div_ sub_ record_stream data_ptr untyped_storage storage
is_contiguous element_size nelement expand expand_as repeat permute transpose flatten unflatten
squeeze unsqueeze narrow split chunk t masked_fill index_select gather scatter_ backward
register_hook requires_grad_ retain_grad new_empty new_zeros new_ones new_full new_tensor
pin_memory is_pinned set_ resize_ share_memory_ apply_ map_
result done cancel cancelled running exception add_done_callback set_result set_exception wait
is_set set synchronize query record wait_stream wait_event join start is_alive run put get
put_nowait get_nowait task_done qsize empty full acquire release locked notify notify_all
close flush read write seek tell send recv
""".split() if not n.startswith("__"))


class HeavyNames:
    """The configured name patterns (Python `re`, searched)."""

    def __init__(self, patterns: List[str]):
        self.patterns = [re.compile(p) for p in patterns]
        self._answers: Dict[str, bool] = {}  # the same names come back in every function

    def __call__(self, name: Optional[str]) -> bool:
        if not name:
            return False
        answer = self._answers.get(name)
        if answer is None:
            answer = self._answers[name] = any(p.search(name) for p in self.patterns)
        return answer


def dotted(e: ast.expr) -> Optional[str]:
    parts = []
    while type(e) is ast.Attribute:
        parts.append(e.attr)
        e = e.value
    if type(e) is not ast.Name:
        return None
    parts.append(e.id)
    return ".".join(reversed(parts))


def tensor_producing(e: Optional[ast.expr], qualify: Callable[[str], Optional[str]],
                     heavy_name: Callable[[ast.expr], bool], depth: int = 0) -> bool:
    """`e` evaluates to a tensor (or a display of them) as far as the code shows."""
    if e is None or depth > 8:
        return False
    if isinstance(e, ast.Call):
        f = e.func
        name = dotted(f)
        qualified = qualify(name) if name else None
        if qualified:
            module, _, last = qualified.rpartition(".")
            if module == "torch.nn.functional" or (module == "torch" and last in TORCH_TENSOR_FUNCTIONS):
                return True
        if isinstance(f, ast.Attribute) and f.attr in TENSOR_METHODS:
            if qualified and qualified.rpartition(".")[0] in _TORCH_MODULES:
                return False  # torch.to(...) is no tensor method
            return True
        return False
    if isinstance(e, ast.BinOp):
        if isinstance(e.op, ast.MatMult):
            return True
        return any(tensor_producing(x, qualify, heavy_name, depth + 1) or heavy_name(x)
                   for x in (e.left, e.right))
    if isinstance(e, (ast.List, ast.Tuple, ast.Set)):
        return any(tensor_producing(x, qualify, heavy_name, depth + 1) or heavy_name(x) for x in e.elts)
    if isinstance(e, (ast.ListComp, ast.GeneratorExp, ast.SetComp)):
        return tensor_producing(e.elt, qualify, heavy_name, depth + 1) or heavy_name(e.elt)
    if isinstance(e, ast.IfExp):
        return any(tensor_producing(x, qualify, heavy_name, depth + 1) or heavy_name(x)
                   for x in (e.body, e.orelse))
    return False


def tensor_annotation(annotation: ast.expr) -> bool:
    """The annotation names a tensor type, alone or inside another (`Tensor`, `torch.Tensor`,
    `Optional[Tensor]`, `Dict[int, Tensor]`, the string "Tensor"): the store keeps device memory
    whether or not the code shows where the value comes from (`self.buf: Tensor = torch.empty(n)`
    in a module that has torch only through a star import)."""
    for n in ast.walk(annotation):
        if isinstance(n, ast.Name) and n.id == "Tensor" or \
                isinstance(n, ast.Attribute) and n.attr == "Tensor" or \
                isinstance(n, ast.Constant) and isinstance(n.value, str) and \
                re.search(r"\bTensor\b", n.value):
            return True
    return False


_LIGHT_CALLS = frozenset({"len", "int", "float", "str", "bool", "repr", "hash", "id", "round"})


def light_value(e: ast.expr) -> bool:
    """`e` is evidently no device memory: a number, a string, a bool, a size or a comparison."""
    while isinstance(e, ast.UnaryOp):  # `- - x`: a loop, however many there are
        e = e.operand
    if isinstance(e, ast.Constant):
        return e.value is not None and not isinstance(e.value, bytes)
    if isinstance(e, (ast.JoinedStr, ast.Compare)):
        return True
    if isinstance(e, ast.Call) and isinstance(e.func, ast.Name):
        return e.func.id in _LIGHT_CALLS
    return False
