"""The named edges a census follows out of one object: attributes (`__dict__`, `__slots__`), dict
keys, sequence indices, closure cells, nn.Module children, parameters and buffers, a tensor's
.grad and grad_fn. Some edges are *late*: the walk enters them once nothing else is left, since
what they lead to has a better name elsewhere (a dict's keys; an optimizer's attributes but its
state: they hold the parameters, which a model names). Everything is read without calling code of
the object's class: no dir(), no properties, no __getattr__, no isinstance (it reads
`__class__`); an object that raises anyway only loses its edges. Each type is sorted once into a
shape that says how to read it. Leaves among the children are left to the walk to skip."""

import gc
import types
from collections import deque
from typing import Callable, Dict, Iterable, List, Optional, Sequence, Tuple

from memfloor.counts import count_of

# An edge: (kind, label, child); the label is what the path shows, rendered only when needed. The
# walk reads them in groups of one kind: (kind, [(label, child), ...]).
Edge = Tuple[int, object, object]
Group = Tuple[int, Iterable[Tuple[object, object]]]

# ITEM: a dict's value, labelled by its key (named by the key's own path unless it is a simple
# one); LATE: an attribute (`.label`) walked last; GRAD_FN and after: the autograd graph, which
# the walk enters late too (LATE_GRAD_FN, a tensor's grad_fn: entered as GRAD_FN once nothing else
# is left), so that what a graph reaches and a named edge reaches as well (a parameter, through the
# AccumulateGrad of an output kept with its graph) is named by the named edge.
VAR, ATTR, ITEM, LATE, INDEX, ELEMENT, CLOSURE, REF, GRAD_FN, GRAPH, GRAPH_INDEX, LATE_GRAD_FN = \
    range(12)
KEY_LABEL = "<key>"  # a dict key, reached from its dict: `.<key>`

# Shapes of types: how the census reads their instances. TUPLE and LIST (exactly those types) and
# DICT (any dict): containers that may hold nothing but leaves, which the walk does not enter;
# SEQUENCE: any other tuple, list or deque. PLAIN: a class defined in Python without slots (its
# attributes are its __dict__); OBJECT: any other. The walk compares them: keep the order.
(LEAF, TUPLE, LIST, DICT, SEQUENCE, TENSOR, SET, FUNCTION, METHOD, FRAME, MODULE, OPTIMIZER, PLAIN,
 OBJECT) = range(14)

# Values with nothing behind them that could hold a tensor, or that a census does not enter:
# modules are roots of their own, classes and functions' globals lead into every library.
_LEAVES = (str, bytes, bytearray, int, float, complex, bool, type(None), range, slice,
           types.ModuleType, types.CodeType, types.BuiltinFunctionType, types.WrapperDescriptorType,
           types.MethodDescriptorType, types.GetSetDescriptorType, types.MemberDescriptorType,
           types.MethodWrapperType, type, type(Ellipsis), memoryview)
_LEAF_NAMES = ("weakref", "weakproxy", "weakcallableproxy", "cell")
# Keys shown by their repr (exactly these types: a subclass's repr would run its code).
SIMPLE_KEYS = (str, int, float, bool, bytes, type(None))
_HEAP_TYPE = 1 << 9  # Py_TPFLAGS_HEAPTYPE: a class defined in Python
_STRUCTURE_NAMES = ("_parameters", "_buffers", "_modules")


def locals_of(frame: types.FrameType) -> Optional[dict]:
    """A frame's locals, leaving no reference behind. Module-level code's locals are its globals.
    A function frame's f_locals is a snapshot before Python 3.13, kept on the frame: it would hold
    its values after the function dropped them, so the census walks a copy and empties it (the
    next f_locals or locals() refills it), unless a trace function, which may write it back into
    the frame, is set. From 3.13 it is a live view, copied."""
    try:
        namespace = frame.f_locals
        if namespace is frame.f_globals:
            return namespace
        copy = dict(namespace.items())
        if type(namespace) is dict and frame.f_trace is None:
            namespace.clear()
        return copy
    except Exception:  # noqa: BLE001
        return None


def _instance_dict(obj: object) -> Optional[dict]:
    try:
        mapping = object.__getattribute__(obj, "__dict__")
    except Exception:  # noqa: BLE001
        return None
    return mapping if type(mapping) is dict else None


def _slot_descriptors(kind: type) -> Tuple[Tuple[str, object, type], ...]:
    found = []
    for cls in kind.__mro__:
        slots = vars(cls).get("__slots__", ())
        for name in (slots,) if isinstance(slots, str) else slots:
            descriptor = vars(cls).get(name)
            if type(descriptor) is types.MemberDescriptorType:
                found.append((name, descriptor, cls))
    return tuple(found)


def dict_groups(mapping: dict) -> Tuple[Group, ...]:
    """A dict's values by key, and its keys that are objects, late."""
    items = list(dict.items(mapping))
    keys = [(KEY_LABEL, key) for key, _ in items if type(key) not in SIMPLE_KEYS]
    return ((ITEM, items), (LATE, keys)) if keys else ((ITEM, items),)


def _attribute_edges(mapping: dict) -> List[Edge]:
    """Attributes (an attribute dict's rare key that is no string is shown as a dict key)."""
    return [(ATTR if type(name) is str else ITEM, name, value)
            for name, value in list(dict.items(mapping))]


def one_by_one(edges: Iterable[Edge]) -> List[Group]:
    """Edges of mixed kinds as groups, in their order."""
    return [(kind, ((label, child),)) for kind, label, child in edges]


def _module_edges(mapping: dict) -> List[Edge]:
    """An nn.Module: `.name` for its children, parameters and buffers (`[i]` in a ModuleList or
    Sequential), not `._modules['name']`."""
    edges = []
    for structure in _STRUCTURE_NAMES:
        members = mapping.get(structure)
        if issubclass(type(members), dict):
            for name, value in list(dict.items(members)):
                index = count_of(name) if type(name) is str else None
                if index is not None:
                    edges.append((INDEX, index, value))
                else:
                    edges.append((ATTR, name, value))
    edges += [(ATTR, name, value) for name, value in list(dict.items(mapping))
              if name not in _STRUCTURE_NAMES]
    return edges


def _optimizer_edges(mapping: dict, shapes: Dict[type, int]) -> List[Edge]:
    """An optimizer: its state first (`optimizer.state[model.lin.weight]['exp_avg']`), the rest
    late (param_groups holds the parameters)."""
    return [(ATTR if name == "state" else LATE, name, value)
            for name, value in list(dict.items(mapping))
            if type(name) is str and shapes.get(type(value)) != LEAF]


def _function_edges(function: types.FunctionType) -> List[Edge]:
    code = function.__code__
    edges = []
    for name, cell in zip(code.co_freevars, function.__closure__ or ()):
        try:
            edges.append((CLOSURE, name, cell.cell_contents))
        except ValueError:  # an empty cell
            pass
    for i, value in enumerate(function.__defaults__ or ()):
        edges.append((ATTR, f"__defaults__[{i}]", value))
    for name, value in (function.__kwdefaults__ or {}).items():
        edges.append((ATTR, f"__kwdefaults__[{name!r}]", value))
    return edges + _attribute_edges(function.__dict__)


def _tensor_edges(tensor) -> List[Edge]:
    if tensor.is_leaf:  # .grad of a non-leaf warns, and it is None
        edges = [(ATTR, "grad", tensor.grad)]
    else:
        edges = [(LATE_GRAD_FN, "grad_fn", tensor.grad_fn)]
    mapping = _instance_dict(tensor)
    return edges + _attribute_edges(mapping) if mapping else edges


class EdgeReader:
    """Edges out of any object, knowing PyTorch's Tensor, Module and Optimizer classes."""

    def __init__(self, tensor_type: type, module_type: type,
                 optimizer_type: Optional[type] = None) -> None:
        self._tensor_type = tensor_type
        self._module_type = module_type
        self._optimizer_type = optimizer_type
        self.shapes: Dict[type, int] = {}  # read directly by the walk: the hot path
        self.base_iter: Dict[type, Callable] = {}  # a sequence's or set's base type's __iter__
        self._slots: Dict[type, tuple] = {}

    def shape(self, kind: type) -> int:
        shape = self.shapes.get(kind)
        if shape is None:
            shape = self.shapes[kind] = self._sort(kind)
        return shape

    def _sort(self, kind: type) -> int:
        if issubclass(kind, _LEAVES) or kind.__name__ in _LEAF_NAMES:
            return LEAF
        if kind is tuple or kind is list:
            self.base_iter[kind] = kind.__iter__
            return TUPLE if kind is tuple else LIST
        shapes = ((self._tensor_type, TENSOR), (dict, DICT), (list, SEQUENCE), (tuple, SEQUENCE),
                  (deque, SEQUENCE), (set, SET), (frozenset, SET),
                  (types.FunctionType, FUNCTION), (types.MethodType, METHOD),
                  (types.FrameType, FRAME), (self._module_type, MODULE))
        if self._optimizer_type is not None:
            shapes += ((self._optimizer_type, OPTIMIZER),)
        for base, shape in shapes:
            if issubclass(kind, base):
                if shape in (SEQUENCE, SET):  # a subclass iterates as its base, not as itself
                    self.base_iter[kind] = base.__iter__
                return shape
        slots = self._slots[kind] = _slot_descriptors(kind)
        return PLAIN if not slots and kind.__flags__ & _HEAP_TYPE else OBJECT

    def groups(self, obj: object, shape: int) -> Sequence[Group]:
        """The edges out of `obj`, of the shape `shape(type(obj))`. The walk reads PLAIN objects
        and sequences itself (the most common: see census_walk)."""
        if shape == PLAIN:
            return ((ATTR, list(dict.items(object.__getattribute__(obj, "__dict__")))),)
        if TUPLE <= shape <= SEQUENCE and shape != DICT:
            return ((INDEX, enumerate(list(self.base_iter[type(obj)](obj)))),)
        if shape == DICT:
            return dict_groups(obj)
        if shape == SET:
            return ((ELEMENT, [(None, value) for value in list(self.base_iter[type(obj)](obj))]),)
        return one_by_one(self._edges(obj, shape))

    def _edges(self, obj: object, shape: int) -> List[Edge]:
        if shape == TENSOR:
            return _tensor_edges(obj)
        if shape == FUNCTION:
            return _function_edges(obj)
        if shape == METHOD:
            return [(ATTR, "__self__", obj.__self__), (ATTR, "__func__", obj.__func__)]
        if shape == FRAME:
            return [(ATTR, "f_locals", locals_of(obj))]
        mapping = _instance_dict(obj)
        if mapping is not None:
            if shape == MODULE:
                return _module_edges(mapping)
            if shape == OPTIMIZER:
                return _optimizer_edges(mapping, self.shapes)
            return self._object_edges(obj, mapping)
        return self._object_edges(obj, {})

    def _object_edges(self, obj: object, mapping: dict) -> List[Edge]:
        edges = _attribute_edges(mapping) if mapping else []
        kind = type(obj)
        for name, descriptor, cls in self._slots.get(kind, ()):
            try:
                edges.append((ATTR, name, descriptor.__get__(obj, cls)))
            except Exception:  # noqa: BLE001: an empty slot
                pass
        if not mapping and not kind.__flags__ & _HEAP_TYPE:
            # An object of a C type (functools.partial, an iterator...): what it holds has no
            # name, but it is still held.
            edges += [(REF, type(value).__name__, value) for value in gc.get_referents(obj)]
        return edges
