"""The named edges a census follows out of one object: attributes (`__dict__`, `__slots__`), dict
keys, sequence indices, closure cells, nn.Module children, parameters and buffers, a tensor's
.grad and grad_fn. Everything is read without calling code of the object's class: no dir(), no
properties, no __getattr__; an object that raises anyway only loses its edges."""

import gc
import types
from collections import deque
from typing import Iterator, Tuple

# An edge: (kind, label, child); the label is what the path shows, rendered only when needed.
Edge = Tuple[int, object, object]

VAR, ATTR, ITEM, KEYED, KEY, INDEX, ELEMENT, CLOSURE, REF, GRAD_FN, GRAPH, GRAPH_INDEX = range(12)

# Values with nothing behind them that could hold a tensor, or that a census does not enter:
# modules are roots of their own, classes and functions' globals lead into every library.
_LEAVES = (str, bytes, bytearray, int, float, complex, bool, type(None), range, slice,
           types.ModuleType, types.CodeType, types.BuiltinFunctionType, types.WrapperDescriptorType,
           types.MethodDescriptorType, types.GetSetDescriptorType, types.MemberDescriptorType,
           types.MethodWrapperType, type, type(Ellipsis), memoryview)
_HEAP_TYPE = 1 << 9  # Py_TPFLAGS_HEAPTYPE: a class defined in Python
_STRUCTURE_NAMES = ("_parameters", "_buffers", "_modules")


def is_leaf(obj: object) -> bool:
    # issubclass of the type, not isinstance: that would read an object's own __class__.
    kind = type(obj)
    return issubclass(kind, _LEAVES) or kind.__name__ in ("weakref", "weakproxy", "cell")


def _dict_edges(mapping: dict) -> Iterator[Edge]:
    for key, value in list(dict.items(mapping)):
        if issubclass(type(key), (str, int, float, bool, bytes, type(None))):
            yield ITEM, key, value
        else:
            yield KEYED, key, value
            yield KEY, None, key


def _instance_dict(obj: object):
    try:
        mapping = object.__getattribute__(obj, "__dict__")
    except Exception:  # noqa: BLE001
        return None
    return mapping if isinstance(mapping, dict) else None


def _slot_edges(obj: object) -> Iterator[Edge]:
    for cls in type(obj).__mro__:
        slots = vars(cls).get("__slots__", ())
        for name in (slots,) if isinstance(slots, str) else slots:
            descriptor = vars(cls).get(name)
            if isinstance(descriptor, types.MemberDescriptorType):
                try:
                    yield ATTR, name, descriptor.__get__(obj, cls)
                except Exception:  # noqa: BLE001: an empty slot
                    pass


def _attribute_edges(mapping: dict) -> Iterator[Edge]:
    for name, value in list(dict.items(mapping)):
        yield (ATTR, name, value) if type(name) is str else (KEYED, name, value)


def _module_edges(mapping: dict) -> Iterator[Edge]:
    """An nn.Module: `.name` for its children, parameters and buffers (`[i]` in a ModuleList or
    Sequential), not `._modules['name']`."""
    for structure in _STRUCTURE_NAMES:
        members = mapping.get(structure)
        if isinstance(members, dict):
            for name, value in list(dict.items(members)):
                if isinstance(name, str) and name.isdigit():
                    yield INDEX, int(name), value
                else:
                    yield ATTR, name, value
    for name, value in list(dict.items(mapping)):
        if name not in _STRUCTURE_NAMES:
            yield ATTR, name, value


def _function_edges(function: types.FunctionType) -> Iterator[Edge]:
    code = function.__code__
    for name, cell in zip(code.co_freevars, function.__closure__ or ()):
        try:
            yield CLOSURE, name, cell.cell_contents
        except ValueError:  # an empty cell
            pass
    for i, value in enumerate(function.__defaults__ or ()):
        yield ATTR, f"__defaults__[{i}]", value
    for name, value in (function.__kwdefaults__ or {}).items():
        yield ATTR, f"__kwdefaults__[{name!r}]", value
    yield from _attribute_edges(function.__dict__)


class EdgeReader:
    """Edges out of any object, knowing PyTorch's Tensor and Module classes."""

    def __init__(self, tensor_type: type, module_type: type) -> None:
        self.tensor_type = tensor_type
        self.module_type = module_type

    def tensor_edges(self, tensor) -> Iterator[Edge]:
        if tensor.is_leaf:  # .grad of a non-leaf warns, and it is None
            yield ATTR, "grad", tensor.grad
        else:
            yield GRAD_FN, "grad_fn", tensor.grad_fn
        mapping = _instance_dict(tensor)
        if mapping:
            yield from _attribute_edges(mapping)

    def edges(self, obj: object) -> Iterator[Edge]:
        kind = type(obj)
        if issubclass(kind, self.tensor_type):
            yield from self.tensor_edges(obj)
        elif issubclass(kind, dict):
            yield from _dict_edges(obj)
        elif issubclass(kind, (list, tuple, deque)):
            for i, value in enumerate(list(kind.__iter__(obj))):
                yield INDEX, i, value
        elif issubclass(kind, (set, frozenset)):
            for value in list(kind.__iter__(obj)):
                yield ELEMENT, None, value
        elif kind is types.FunctionType:
            yield from _function_edges(obj)
        elif kind is types.MethodType:
            yield ATTR, "__self__", obj.__self__
            yield ATTR, "__func__", obj.__func__
        elif kind is types.FrameType:
            yield ATTR, "f_locals", obj.f_locals
        else:
            yield from self._object_edges(obj, kind)

    def _object_edges(self, obj: object, kind: type) -> Iterator[Edge]:
        mapping = _instance_dict(obj)
        if mapping is not None:
            if issubclass(kind, self.module_type):
                yield from _module_edges(mapping)
            else:
                yield from _attribute_edges(mapping)
        yield from _slot_edges(obj)
        if mapping is None and not kind.__flags__ & _HEAP_TYPE:
            # An object of a C type (functools.partial, an iterator...): what it holds has no
            # name, but it is still held.
            for value in gc.get_referents(obj):
                yield REF, type(value).__name__, value
