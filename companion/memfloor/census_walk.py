"""The walk of a census: breadth first from named roots over named edges, so the first path to an
object is its shortest named one, ties going to the earlier root (user code first); late edges
(census_edges: dict keys, an optimizer's attributes, autograd graphs) only once nothing else is
left, breadth first again from where they lead. Each
object is entered once (by id) and kept alive until the walk is cleared, so ids stay unique
meanwhile; the table holds, per object, its parent, the edge from it and its holder (the root
variable it was first reached through). Labels are turned into paths only for what is asked."""

import itertools
from gc import is_tracked
from typing import Dict, Iterable, Iterator, List, Sequence, Set, Tuple

from memfloor.census_edges import (
    ATTR, CLOSURE, DICT, ELEMENT, GRAD_FN, GRAPH, GRAPH_INDEX, INDEX, ITEM, LATE, LATE_GRAD_FN,
    LEAF, LIST, PLAIN, REF, SEQUENCE, SIMPLE_KEYS, TENSOR, TUPLE, VAR, EdgeReader, one_by_one)
from memfloor.census_graph import node_edges, node_name
from memfloor.census_roots import Root

_REPR_LIMIT = 40
# A tuple or list up to this long is looked into before it is entered: holding leaves only, it is
# not (the most common small containers: shapes, ids, names).
SMALL = 8


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
        # (parent, kind, [(label, child)...]): late edges, entered once nothing else is left
        self._late: List[Tuple[int, int, Iterable]] = []
        self.tensors: List[int] = []
        self.looked = 0  # small containers looked into and not entered: they hold leaves only
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
        variables = len(self.objects)
        for index in range(variables):
            self._enter_variables(index)
        self._breadth_first(self._expansions(variables, 1))  # the roots were level 0
        while self._late and self.complete:  # late edges, once nothing else is left
            late, self._late = self._late, []
            # Late attributes are shown as `.label`; a graph is entered at its grad_fn.
            entered = [(index, GRAD_FN if kind == LATE_GRAD_FN else ATTR, pairs)
                       for index, kind, pairs in late]
            self._breadth_first(itertools.chain(entered, self._expansions(len(self.objects), 0)))

    def _enter_variables(self, root: int) -> None:
        """A root's children: variables, each the holder of what is reached through it."""
        reader, objects, rows, seen_at = self._reader, self.objects, self._rows, self._index
        try:
            groups = reader.groups(self.objects[root], reader.shape(type(self.objects[root])))
        except Exception:  # noqa: BLE001: a root that raises has no variables
            return
        for kind, pairs in groups:
            for label, child in pairs:
                seen = seen_at.get(id(child))
                if seen is not None:  # a root variable is a holder of its own, even so
                    if rows[seen][3] != seen:
                        self._also.setdefault(seen, set()).add(seen)
                    continue
                shape = reader.shape(type(child))
                if shape == LEAF or type(child) in (tuple, dict) and not is_tracked(child):
                    continue
                if len(objects) >= self._max_objects:
                    self.complete = False
                    return
                seen_at[id(child)] = added = len(objects)
                objects.append(child)
                simple = kind == ITEM and type(label) in SIMPLE_KEYS
                rows.append((root, VAR if simple else kind, label, added))
                if shape == TENSOR:
                    self.tensors.append(added)

    def _expansions(self, position: int, depth: int) -> Iterator[Tuple[int, int, Iterable]]:
        """(index, kind, [(label, child)...]): the edges of each object from `position` on, a
        group of one kind at a time, level by level (`depth`: the first one's) while the walk adds
        the next levels. PLAIN objects and sequences, most of a heap, are read here; the others
        by the reader."""
        reader = self._reader
        shapes, base_iter, objects, nodes = reader.shapes, reader.base_iter, self.objects, \
            self._nodes
        get_attribute = object.__getattribute__
        while position < len(objects) and depth < self._max_depth:
            level_end = len(objects)
            for index in range(position, level_end):
                obj = objects[index]
                kind = type(obj)
                shape = shapes[kind]  # sorted when the object was added
                try:
                    if index in nodes:
                        groups = one_by_one(list(node_edges(obj)))
                    elif shape == PLAIN:
                        yield index, ATTR, list(dict.items(get_attribute(obj, "__dict__")))
                        continue
                    elif TUPLE <= shape <= SEQUENCE and shape != DICT:
                        yield index, INDEX, enumerate(list(base_iter[kind](obj)))
                        continue
                    else:
                        groups = reader.groups(obj, shape)
                except Exception:  # noqa: BLE001: an object that raises loses its edges
                    continue
                for kind, pairs in groups:
                    yield index, kind, pairs
            position, depth = level_end, depth + 1

    def _breadth_first(self, expansions: Iterable[Tuple[int, int, Iterable]]) -> None:
        """Adds the children not seen yet of each expanded object, the hot loop of a census; late
        edges wait in `_late`."""
        reader = self._reader
        shapes, objects, rows, seen_at = reader.shapes, self.objects, self._rows, self._index
        also, tensors, late, max_objects = self._also, self.tensors, self._late, self._max_objects
        new_object, new_row = objects.append, rows.append
        added = len(objects)
        for index, kind, pairs in expansions:
            if kind == LATE or kind == LATE_GRAD_FN:
                late.append((index, kind, pairs))
                continue
            holder = rows[index][3]
            graph = kind >= GRAD_FN
            for label, child in pairs:
                child_type = type(child)
                try:
                    shape = shapes[child_type]
                except KeyError:
                    shape = reader.shape(child_type)
                if shape <= DICT:  # a leaf, or a container that may hold nothing
                    if shape == LEAF or shape != LIST and not is_tracked(child):
                        continue  # Python stops tracking a tuple or dict of atoms: no tensor
                    if shape != DICT and len(child) <= SMALL:
                        for item in child:
                            if shapes.get(type(item)) != LEAF:
                                break
                        else:
                            self.looked += 1  # leaves only
                            continue
                key = id(child)
                if key in seen_at:
                    seen = seen_at[key]
                    if rows[seen][3] != holder:
                        also.setdefault(seen, set()).add(holder)
                    continue
                if added >= max_objects:
                    self.complete = False
                    return
                seen_at[key] = added
                new_object(child)
                new_row((index, kind, label, holder))
                if shape == TENSOR:
                    tensors.append(added)
                elif graph:
                    self._add_graph_node(kind, label, added)
                added += 1

    def _add_graph_node(self, kind: int, label: object, added: int) -> None:
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
        if kind == ITEM or kind == ATTR and type(label) is not str:  # a dict's key
            if type(label) in SIMPLE_KEYS:  # exactly: a subclass's repr would run its code
                return f"[{_short_repr(label)}]"
            key = self._key_path(label, root) if root >= 0 else f"<{type(label).__name__}>"
            return f"[{key}]"
        if kind == INDEX:
            return f"[{label}]"
        if kind == ELEMENT:
            return ".<element>"
        if kind == CLOSURE:
            return f".<closure>.{label}"
        if kind == REF:
            return f".<{label}>"
        return f".{label}"  # VAR, ATTR
