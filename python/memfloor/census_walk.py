"""The walk of a census: breadth first from named roots over named edges, so the first path to an
object is its shortest named one, ties going to the earlier root (user code first). Each object is
entered once (by id) and kept alive until the walk is cleared, so ids stay unique meanwhile; the
table holds, per object, its parent, the edge from it and its holder (the root variable it was
first reached through)."""

from typing import Dict, List, Sequence, Set, Tuple

from memfloor.census_edges import (
    CLOSURE, ELEMENT, GRAD_FN, GRAPH_INDEX, INDEX, ITEM, KEY, KEYED, REF, VAR, EdgeReader, is_leaf)
from memfloor.census_graph import node_edges, node_name
from memfloor.census_roots import Root

_REPR_LIMIT = 40


def _short_repr(key: object) -> str:
    text = repr(key)
    return text if len(text) <= _REPR_LIMIT else text[:_REPR_LIMIT - 3] + "..."


class Walk:
    """One census walk; `clear()` drops every reference it took."""

    def __init__(self, reader: EdgeReader, max_objects: int, max_depth: int) -> None:
        self._reader = reader
        self._max_objects = max_objects
        self._max_depth = max_depth
        self.objects: List[object] = []
        self._parents: List[int] = []
        self._kinds: List[int] = []
        self._labels: List[object] = []
        self._holders: List[int] = []
        self._depths: List[int] = []
        self._index: Dict[int, int] = {}
        self._also: Dict[int, Set[int]] = {}  # other holders that reached an object
        self._nodes: Set[int] = set()  # autograd nodes
        self.tensors: List[int] = []
        self.complete = True

    def clear(self) -> None:
        for table in (self.objects, self._parents, self._kinds, self._labels, self._holders,
                      self._depths, self.tensors):
            table.clear()
        self._index.clear()
        self._also.clear()
        self._nodes.clear()

    # -- walking -------------------------------------------------------------------------------

    def _add(self, obj: object, parent: int, kind: int, label: object, holder: int) -> int:
        index = len(self.objects)
        self.objects.append(obj)
        self._parents.append(parent)
        self._kinds.append(kind)
        self._labels.append(label)
        self._holders.append(holder)
        self._depths.append(self._depths[parent] + 1 if parent >= 0 else 0)
        self._index[id(obj)] = index
        if issubclass(type(obj), self._reader.tensor_type):
            self.tensors.append(index)
        return index

    def run(self, roots: Sequence[Root]) -> None:
        for name, namespace in roots:
            if id(namespace) not in self._index:
                self._add(namespace, -1, VAR, name, -1)
        position = 0
        while position < len(self.objects):
            if self._depths[position] < self._max_depth:
                self._expand(position)
            position += 1

    def _expand(self, index: int) -> None:
        obj = self.objects[index]
        is_root = self._parents[index] < 0
        holder = self._holders[index]
        in_graph = index in self._nodes
        try:
            edges = node_edges(obj) if in_graph else self._reader.edges(obj)
            for kind, label, child in edges:
                if child is None or is_leaf(child):
                    continue
                seen = self._index.get(id(child))
                if seen is not None:
                    # A root variable is a holder of its own, even of what another reached first.
                    other = seen if is_root else holder
                    if other >= 0 and self._holders[seen] != other:
                        self._also.setdefault(seen, set()).add(other)
                    continue
                if len(self.objects) >= self._max_objects:
                    self.complete = False
                    return
                if is_root and kind == ITEM:
                    kind = VAR
                added = self._add(child, index, kind, label, holder)
                if is_root:
                    self._holders[added] = added
                if kind == GRAD_FN or (kind == GRAPH_INDEX and label[0] == "next_functions"):
                    self._nodes.add(added)
        except Exception:  # noqa: BLE001: an object that raises loses the rest of its edges
            pass

    # -- reading -------------------------------------------------------------------------------

    def holders_of(self, index: int) -> Set[int]:
        """The holders that reached an object: its own and those that reached an ancestor."""
        found = set()
        while index >= 0:
            if self._holders[index] >= 0:
                found.add(self._holders[index])
            found |= self._also.get(index, set())
            index = self._parents[index]
        return found

    def path_of(self, index: int, key_root: int = -1) -> Tuple[str, List[str]]:
        """The named path to an object and, when it was reached through an autograd graph, the
        path of the tensor whose grad_fn led there with the nodes on the way. Inside the path of
        a key (`key_root` >= 0) keys are not named again, nor the root when it is the same."""
        chain = []
        while index >= 0:
            chain.append(index)
            index = self._parents[index]
        chain.reverse()
        parts = [str(self._labels[chain[0]])]
        if chain[0] == key_root and len(chain) > 1:
            first = self._segment(self._kinds[chain[1]], self._labels[chain[1]], -2)
            parts = [first[1:] if first.startswith(".") else first]
            chain = chain[1:]
        via_graph: List[str] = []
        for step in chain[1:]:
            kind = self._kinds[step]
            if kind == GRAD_FN:
                via_graph.append(node_name(self.objects[step]))
            elif via_graph:
                if step in self._nodes:
                    via_graph.append(node_name(self.objects[step]))
            else:
                parts.append(self._segment(kind, self._labels[step], chain[0] if key_root < 0 else -2))
        return "".join(parts), via_graph

    def _segment(self, kind: int, label: object, root: int) -> str:
        """One edge of a path; `root` is the path's root, or -2 inside a key's path."""
        if kind == ITEM:
            return f"[{_short_repr(label)}]"
        if kind == INDEX:
            return f"[{label}]"
        if kind == KEYED:
            key = self._index.get(id(label)) if root != -2 else None
            name = self.path_of(key, key_root=root)[0] if key is not None else None
            return f"[{name or '<' + type(label).__name__ + '>'}]"
        if kind == KEY:
            return ".<key>"
        if kind == ELEMENT:
            return ".<element>"
        if kind == CLOSURE:
            return f".<closure>.{label}"
        if kind == REF:
            return f".<{label}>"
        return f".{label}"  # VAR, ATTR
