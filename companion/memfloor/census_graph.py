"""The edges of an autograd graph, for a census: from a tensor's grad_fn along next_functions to
what the nodes keep (built-in nodes' `_saved_*` tensors, AccumulateGrad's variable, a custom
Function's saved_tensors and context attributes, checkpoint contexts among them)."""

from typing import Dict, Iterator, Tuple

from memfloor.census_edges import Edge, GRAPH, GRAPH_INDEX

_SAVED_NAMES: Dict[type, Tuple[str, ...]] = {}


def _saved_names(node_type: type) -> Tuple[str, ...]:
    """The `_saved_*` attributes a built-in node type defines (not `_raw_saved_*`, the same
    tensors as SavedTensor objects), read from the type: no instance attribute is guessed."""
    names = _SAVED_NAMES.get(node_type)
    if names is None:
        names = ()
        try:
            names = tuple(name for name in vars(node_type) if name.startswith("_saved_"))
        except Exception:  # noqa: BLE001
            pass
        _SAVED_NAMES[node_type] = names
    return names


def node_name(node: object) -> str:
    try:
        return str(node.name())
    except Exception:  # noqa: BLE001
        return type(node).__name__


def node_edges(node: object) -> Iterator[Edge]:
    """What one autograd node keeps alive, each edge named as the attribute it is read from."""
    try:
        for i, (child, _) in enumerate(node.next_functions):
            if child is not None:
                yield GRAPH_INDEX, ("next_functions", i), child
    except Exception:  # noqa: BLE001
        pass
    for name in _saved_names(type(node)):
        try:
            value = getattr(node, name)  # freed after backward: raises
        except Exception:  # noqa: BLE001
            continue
        if isinstance(value, (tuple, list)):
            for i, item in enumerate(value):
                yield GRAPH_INDEX, (name, i), item
        elif value is not None:
            yield GRAPH, name, value
    if type(node).__name__ == "AccumulateGrad":
        try:
            yield GRAPH, "variable", node.variable
        except Exception:  # noqa: BLE001
            pass
    if hasattr(type(node), "_forward_cls"):  # a custom Function: the node is its context
        try:
            for i, item in enumerate(node.saved_tensors):
                yield GRAPH_INDEX, ("saved_tensors", i), item
        except Exception:  # noqa: BLE001
            pass
        try:
            attributes = dict.items(object.__getattribute__(node, "__dict__"))
            for name, value in list(attributes):
                yield GRAPH, name, value
        except Exception:  # noqa: BLE001
            pass
