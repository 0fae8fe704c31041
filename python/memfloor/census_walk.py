"""The walk of a census: breadth first from named roots over named edges, so the first path to an
object is its shortest named one, ties going to the earlier root (user code first); late edges
(census_edges) only once nothing else is left, breadth first again from where they lead. Each object is
entered once (by id) and kept alive until the walk is cleared, so ids stay unique meanwhile; the
table holds, per object, its parent, the edge from it and its holder (the root variable it was
first reached through)."""

from gc import is_tracked
from typing import Dict, List, Sequence, Set, Tuple

from memfloor.census_edges import (
    CLOSURE, ELEMENT, GRAD_FN, GRAPH, GRAPH_INDEX, INDEX, ITEM, KEYED, LATE, LEAF, REF, TENSOR, VAR,
    Edge, EdgeReader)
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
        self._rows: List[Tuple[int, int, object, int]] = []  # parent, kind, label, holder
        self._index: Dict[int, int] = {}
        self._also: Dict[int, Set[int]] = {}  # other holders that reached an object
        self._nodes: Set[int] = set()  # autograd nodes
        self._late: List[Tuple[int, Edge]] = []  # (parent, edge) entered once nothing else is left
        self.tensors: List[int] = []
        self.complete = True

    def clear(self) -> None:
        for table in (self.objects, self._rows, self.tensors):
            table.clear()
        self._index.clear()
        self._also.clear()
        self._nodes.clear()
        self._late.clear()

    # -- walking -------------------------------------------------------------------------------

    def run(self, roots: Sequence[Root]) -> None:
        for name, namespace in roots:
            if id(namespace) not in self._index:
                self._index[id(namespace)] = len(self.objects)
                self.objects.append(namespace)
                self._rows.append((-1, VAR, name, -1))
        self._breadth_first(0)
        while self._late and self.complete:  # late edges, once nothing else is left
            late, self._late = self._late, []
            start = len(self.objects)
            for index, edge in late:
                self._enter(index, (edge,), False)
            self._breadth_first(start)

    def _breadth_first(self, position: int) -> None:
        depth, level_end = 0, len(self.objects)
        while position < len(self.objects) and depth < self._max_depth:
            self._expand(position)
            position += 1
            if position == level_end:
                depth, level_end = depth + 1, len(self.objects)

    def _expand(self, index: int) -> None:
        obj = self.objects[index]
        reader = self._reader
        try:
            if index in self._nodes:
                edges = list(node_edges(obj))
            else:
                kind = type(obj)
                edges = reader.edges(obj, reader.shapes.get(kind) or reader.shape(kind))
        except Exception:  # noqa: BLE001: an object that raises loses its edges
            return
        self._enter(index, edges, True)

    def _enter(self, index: int, edges: Sequence[Edge], defer: bool) -> None:
        """Adds the children of `index` not seen yet; late edges wait if `defer`."""
        reader = self._reader
        parent, _, _, holder = self._rows[index]
        shapes, objects, rows, seen_at = reader.shapes, self.objects, self._rows, self._index
        for edge in edges:
            child = edge[2]
            kind = type(child)
            shape = shapes.get(kind)
            if shape is None:
                shape = reader.shape(kind)
            if shape == LEAF or (kind is tuple or kind is dict) and not is_tracked(child):
                continue  # Python stops tracking a tuple or dict of atoms: it holds no tensor
            key = id(child)
            seen = seen_at.get(key)
            if seen is not None:
                self._reached_again(seen, holder, parent < 0)
                continue
            if defer and edge[0] == LATE:
                self._late.append((index, edge))
                continue
            added = len(objects)
            if added >= self._max_objects:
                self.complete = False
                return
            seen_at[key] = added
            objects.append(child)
            if parent >= 0:
                rows.append((index, edge[0], edge[1], holder))
            else:
                self._add_variable(index, edge, added)
            if shape == TENSOR:
                self.tensors.append(added)
            elif edge[0] >= GRAD_FN:
                self._add_graph_node(edge, added)

    def _reached_again(self, seen: int, holder: int, from_root: bool) -> None:
        # A root variable is a holder of its own, even of what another reached first.
        other = seen if from_root else holder
        if other >= 0 and self._rows[seen][3] != other:
            self._also.setdefault(seen, set()).add(other)

    def _add_variable(self, root: int, edge: Edge, added: int) -> None:
        """A child of a root: a variable, the holder of what is reached through it."""
        kind, label, _ = edge
        self._rows.append((root, VAR if kind == ITEM else kind, label, added))

    def _add_graph_node(self, edge: Edge, added: int) -> None:
        kind, label, _ = edge
        if kind == GRAD_FN or (kind == GRAPH_INDEX and label[0] == "next_functions"):
            self._nodes.add(added)

    # -- reading -------------------------------------------------------------------------------

    def holders_of(self, index: int) -> Set[int]:
        """The holders that reached an object: its own and those that reached an ancestor."""
        found = set()
        while index >= 0:
            parent, _, _, holder = self._rows[index]
            if holder >= 0:
                found.add(holder)
            found |= self._also.get(index, set())
            index = parent
        return found

    def edge_to(self, index: int) -> Tuple[int, int, object]:
        """The edge an object was first reached by: (parent index, -1 for a root; kind; label)."""
        parent, kind, label, _ = self._rows[index]
        return parent, kind, label

    def chain(self, index: int) -> List[int]:
        """The indices on an object's path, from its root to itself."""
        chain = []
        while index >= 0:
            chain.append(index)
            index = self._rows[index][0]
        chain.reverse()
        return chain

    def path_of(self, index: int) -> Tuple[str, List[str]]:
        """The named path to an object and, when it was reached through an autograd graph, the
        path of the tensor whose grad_fn led there with the nodes on the way."""
        chain = self.chain(index)
        parts = [str(self._rows[chain[0]][2])]
        via_graph: List[str] = []
        for step in chain[1:]:
            _, kind, label, _ = self._rows[step]
            if kind == GRAD_FN or (via_graph and step in self._nodes):
                via_graph.append(node_name(self.objects[step]))
            elif not via_graph:
                parts.append(self._segment(kind, label, chain[0]))
        return "".join(parts), via_graph

    def _key_path(self, key: object, root: int) -> str:
        """A dict key's own path, without the root when it is the dict's (`state[model.w]`), and
        without naming keys again."""
        index = self._index.get(id(key))
        if index is None:
            return f"<{type(key).__name__}>"
        chain = self.chain(index)
        parts = [] if chain[0] == root else [str(self._rows[chain[0]][2])]
        for step in chain[1:]:
            _, kind, label, _ = self._rows[step]
            if kind in (GRAD_FN, GRAPH, GRAPH_INDEX):
                break
            parts.append(self._segment(kind, label, -1))
        text = "".join(parts)
        return text[1:] if text.startswith(".") else text

    def _segment(self, kind: int, label: object, root: int) -> str:
        """One edge of a path; `root` is the path's root, -1 inside a key's path."""
        if kind == ITEM:
            return f"[{_short_repr(label)}]"
        if kind == INDEX:
            return f"[{label}]"
        if kind == KEYED:
            key = self._key_path(label, root) if root >= 0 else f"<{type(label).__name__}>"
            return f"[{key}]"
        if kind == ELEMENT:
            return ".<element>"
        if kind == CLOSURE:
            return f".<closure>.{label}"
        if kind == REF:
            return f".<{label}>"
        return f".{label}"  # VAR, ATTR
