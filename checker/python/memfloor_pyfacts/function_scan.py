"""One function: its stores and releases of attributes, its calls on objects (with "released on every
path to the exit?") and its dereferences of attributes (with "assigned or tested on every path from
the entry?"), answered on cfg.Graph by a bit-mask data flow per handle."""

from __future__ import annotations

import ast
from typing import Dict, List, Optional, Set, Tuple

from . import cfg
from .handles import (IN_PLACE_IDIOMS, LOCAL, NULLING_IDIOMS, PARAM, SELF, EffectWalker, Effects,
                      Handle, Scope, tested)
from .function_locals import BodyNames
from .heavy import dotted, light_value, tensor_annotation
from .raw import Candidate, DerefRaw, EdgeRaw, EventRaw, FunctionRaw, Loc, SiteRaw

_SIMPLE_FIX = (ast.Expr, ast.Assign, ast.AnnAssign, ast.AugAssign)


class FunctionScan:
    def __init__(self, file, node, qualname: str, cls: Optional[str], kind: str):
        self.f = file  # file_scan.FileScan: names, locations, configuration, output
        self.node = node
        self.key = file.module + "." + qualname
        self.qualname = qualname
        self.cls = cls
        self.kind = kind
        args = node.args
        names = [a.arg for a in getattr(args, "posonlyargs", [])] + [a.arg for a in args.args]
        static = any(dotted(d) in ("staticmethod", "classmethod") for d in node.decorator_list)
        self.self_name = names[0] if cls is not None and names and not static else None
        params = set(names) | {a.arg for a in args.kwonlyargs}
        for extra in (args.vararg, args.kwarg):
            if extra is not None:
                params.add(extra.arg)
        params.discard(self.self_name)
        self.annotations = self._annotations(args)
        names = BodyNames(file, node.body, params)
        self.locals = names.locals
        self.escapes = names.escapes
        self.returns = names.returns
        self.nested = names.nested
        self._tensor = names.tensor
        self._heavy_expr = names.heavy_expr
        self.scope = Scope(self.self_name, params, set(self.locals), file.globals, file.non_objects)
        self._find_aliases()
        self.walker = EffectWalker(self.scope, file.release_methods, file.store_methods)
        self.effects: Dict[int, Effects] = {}
        self.graph: Optional[cfg.Graph] = None
        self.node_fx: List[Optional[Effects]] = []  # by node index; None where no element
        self._touching: Optional[Dict[str, List[int]]] = None
        self._first_calls: Optional[Dict[Tuple[str, str], Loc]] = None

    # -- names ----------------------------------------------------------------------------------

    def _annotations(self, args: ast.arguments) -> Dict[str, Tuple[str, ...]]:
        """Parameter -> the qualified classes its annotation names (`x: Node`, `x: Optional[Node]`,
        `x: "Node"`, `x: Node | None`); the program decides which of them are its classes."""
        found: Dict[str, Tuple[str, ...]] = {}
        for a in list(getattr(args, "posonlyargs", [])) + list(args.args) + list(args.kwonlyargs):
            if a.annotation is None:
                continue
            names = []
            stack = [a.annotation]
            while stack and len(names) < 4:
                e = stack.pop()
                if isinstance(e, ast.Constant) and isinstance(e.value, str):
                    names.append(e.value)
                elif isinstance(e, ast.Subscript) and dotted(e.value) in ("Optional", "typing.Optional"):
                    stack.append(e.slice)
                elif isinstance(e, ast.BinOp) and isinstance(e.op, ast.BitOr):
                    stack.extend((e.left, e.right))
                elif dotted(e):
                    names.append(dotted(e))
            qualified = tuple(q for q in (self.f.qualify(n) for n in names) if q)
            if qualified:
                found[a.arg] = qualified
        return found

    def _find_aliases(self) -> None:
        """A local always bound to the same attribute of an object that outlives the function
        stands for that attribute (`m = self.manager` or `getattr(self, "manager", None)`)."""
        for name, info in self.locals.items():
            texts = set()
            origin = None
            for value in info.origins:
                h = self.scope.handle(value) if value is not None else None
                if h is None or h.attr is None or h.root == LOCAL:
                    texts = set()
                    break
                texts.add(h.key)
                origin = h
            if len(texts) == 1 and origin is not None:
                self.scope.aliases[name] = origin

    # -- elements -------------------------------------------------------------------------------

    def _effects(self, node: cfg.Node) -> Effects:
        elem = node.elem
        fx = self.effects.get(id(elem))
        if fx is None:
            if isinstance(elem, cfg.WithExit):
                fx = Effects()
                for item in elem.stmt.items:
                    h = self.scope.handle(item.context_expr)
                    if h is not None:
                        fx.calls.append((h, "__exit__", item.context_expr, True))
            else:
                fx = self.walker.element(elem, node.kind == cfg.CONDITION)
            self.effects[id(elem)] = fx
        return fx

    def run(self) -> None:
        self.graph = graph = cfg.Graph(self.node.body)
        # Each element with its first node, in the order of the nodes: `positions` holds the
        # elements in the order their first nodes were made (ties in the sort below keep it).
        elems: List[Tuple[cfg.Node, Effects]] = []
        node_fx: List[Optional[Effects]] = [None] * len(graph.nodes)
        effects = self.effects
        element = self.walker.element
        for elem, nodes in graph.positions.items():
            n = nodes[0]
            if type(elem) is cfg.WithExit:
                fx = self._effects(n)
            else:
                fx = effects[id(elem)] = element(elem, n.kind == cfg.CONDITION)
            elems.append((n, fx))
            for m in nodes:
                node_fx[m.index] = fx
        self.node_fx = node_fx
        elems.sort(key=_elem_pos)
        self._events(elems)
        self._sites(elems)
        self._derefs(elems)
        self._edges(elems)
        self.f.functions.append(FunctionRaw(self.key, self.qualname, self.cls, self.kind,
                                            self.f.loc(self.node), self._null_tests()))
        graph.close()

    def _events(self, elems) -> None:
        for node, fx in elems:
            for h, idiom, at in fx.releases + fx.removals:
                if h.attr is not None:
                    self._event(h, "release", idiom, at, None)
            # `self.buf: Tensor = ...` keeps a tensor whatever the code shows of its value.
            typed = node.elem.target if type(node.elem) is ast.AnnAssign and \
                tensor_annotation(node.elem.annotation) else None
            for h, idiom, value, at in fx.assigns:
                if h.attr is not None:
                    self._event(h, "assign", idiom, at, value, at is typed)

    def _event(self, h: Handle, kind: str, idiom: str, at: ast.AST, value,
               typed: bool = False) -> None:
        heavy = typed
        ctors: Tuple[str, ...] = ()
        light = value is not None and light_value(value)
        if value is not None:
            heavy = heavy or self._heavy_expr(value) or self._tensor(value)
            if isinstance(value, ast.Call) and dotted(value.func):
                q = self.f.qualify(dotted(value.func))
                ctors = (q,) if q else ()
            elif isinstance(value, ast.Name) and value.id in self.locals:
                ctors = tuple(sorted(self.locals[value.id].ctors))
        # A container that gains an element per call grows whatever the element is made from.
        per_call = idiom.startswith(".") or idiom == "[] = value" or (
            value is not None and self._from_arguments(value))
        self.f.events.append(EventRaw(self.key, self.cls if h.through_self else None, h.attr,
                                      h.through_self, kind, idiom, self.f.loc(at), heavy, ctors,
                                      light, per_call))

    def _from_arguments(self, value: ast.expr) -> bool:
        """`value` is made from what this call received: a parameter, or a local that is."""
        for n in ast.walk(value):
            if isinstance(n, ast.Name):
                if n.id in self.scope.params:
                    return True
                info = self.locals.get(n.id)
                if info is not None and any(
                        o is not None and o is not value and self._names_param(o) for o in info.origins):
                    return True
        return False

    def _names_param(self, e: ast.expr) -> bool:
        return any(isinstance(n, ast.Name) and n.id in self.scope.params for n in ast.walk(e))

    # -- MF001 sites ----------------------------------------------------------------------------

    def _sites(self, elems) -> None:
        answers: Dict[str, List[int]] = {}
        labels: Dict[str, List[Tuple[str, str]]] = {}
        for node, fx in elems:
            for recv, method, call, _ in fx.calls:
                if recv is None or method == "__exit__":
                    continue
                if recv.key not in answers:
                    labels[recv.key] = []
                    answers[recv.key] = self._released_flow(recv, labels[recv.key])
                self._site(node, recv, method, call, answers[recv.key], labels[recv.key])

    def _release_events(self, h: Handle, names: List[Tuple[str, str]]):
        index: Dict[Tuple[str, str], int] = {}
        parent = h.parent.key if h.parent is not None else None

        def events(n: cfg.Node) -> int:
            fx = self.node_fx[n.index]
            if fx is None:
                return 0
            if any(r.key == h.key for r, _, _ in fx.releases):
                return cfg.ALL
            bits = 0
            for recv, method, call, certain in fx.calls:
                # A method that releases its object's state releases with no arguments: one that
                # takes some (`x.combine(others)`) does more than drop what it holds.
                if not certain or recv is None or getattr(call, "args", None) or \
                        getattr(call, "keywords", None):
                    continue
                kind = "self" if recv.key == h.key else "owner" if recv.key == parent else None
                if kind is None:
                    continue
                label = (kind, method)
                if label not in index:
                    index[label] = len(names)
                    names.append(label)
                bits |= 1 << index[label]
            return bits
        return events

    def _released_flow(self, h: Handle, names: List[Tuple[str, str]]) -> List[int]:
        return cfg.must_after_own(self.graph, self._own(self._release_events(h, names), h))

    def _own(self, events, h: Handle) -> List[int]:
        """events(n) for each node n by index, asked only of the nodes whose effects name `h` or
        its parent (the others give 0), in the order of the nodes (which numbers the labels)."""
        own = [0] * len(self.graph.nodes)
        touching = self._nodes_touching()
        indices = touching.get(h.key, [])
        if h.parent is not None and h.parent.key in touching:
            indices = sorted(set(indices).union(touching[h.parent.key]))
        nodes = self.graph.nodes
        for i in indices:
            own[i] = events(nodes[i])
        return own

    def _nodes_touching(self) -> Dict[str, List[int]]:
        """Handle key -> the nodes (indices, ascending) whose effects release, assign, test or
        call on it; made once per function, when the first question is asked."""
        if self._touching is None:
            index: Dict[str, List[int]] = {}
            get = index.get

            def add(key: str, i: int) -> None:
                at = get(key)
                if at is None:
                    index[key] = [i]
                elif at[-1] != i:  # the nodes come in order: a repeat is the last one
                    at.append(i)

            for i, fx in enumerate(self.node_fx):
                if fx is None:
                    continue
                for r, _, _ in fx.releases:
                    add(r.key, i)
                for a, _, _, _ in fx.assigns:
                    add(a.key, i)
                for t in fx.tests:
                    add(t.key, i)
                for c, _, _, _ in fx.calls:
                    if c is not None:
                        add(c.key, i)
            self._touching = index
        return self._touching

    def _site(self, node, recv: Handle, method: str, call: ast.Call, flow: List[int],
              names: List[Tuple[str, str]]) -> None:
        result = cfg.ALL
        for p in self.graph.positions.get(node.elem, [node]):
            for s in p.succ:
                result &= flow[s.index]
        direct = result == cfg.ALL
        event, idiom = self._nearest_release(node, recv) if direct else (None, "")
        if direct and event is None:
            return  # every path on from here raises: no use whose object lives on, nothing taught
        candidates = []
        if not direct:
            for i, (kind, name) in enumerate(names):
                if result >> i & 1:
                    candidates.append(Candidate(kind, name, self._first_call(recv, kind, name)))
        # A release teaches "release after this call" only where the call is the object's last
        # use: released later, after other calls on it, the call was one step of many (what
        # precedes a cleanup at the end of a long method is no belief); and a call on it that
        # comes next is the only call that can be its release.
        released_later = direct or any(c.kind == "self" for c in candidates)
        if released_later:
            following = self._next_calls(node, recv)
            if direct and following:
                return
            if not direct:
                mine = [c for c in candidates if c.kind == "self"]
                keep = [c for c in mine if following == {c.name}]
                if mine and not keep and not any(c.kind == "owner" for c in candidates):
                    return
                candidates = [c for c in candidates if c.kind == "owner"] + keep
        info = self.locals.get(recv.text) if recv.root == LOCAL else None
        persistent = recv.root in (PARAM, "global") or (recv.root == SELF and not recv.is_self) or \
            (info is not None and (info.persistent or recv.text in self.escapes))
        heavy = self.f.heavy_name(recv.attr or recv.text) or (info is not None and info.heavy)
        fix_after, indent = self._fix_anchor(node.elem)
        guard_at = self._guard_anchor(node.elem) if fix_after is not None else None
        ctors = tuple(sorted(info.ctors)) if info else \
            self.annotations.get(recv.text, ()) if recv.root == PARAM and recv.attr is None else ()
        self.f.sites.append(SiteRaw(
            self.key, self.cls, method, recv.text, recv.attr, recv.through_self,
            recv.root, persistent, ctors, heavy,
            self.f.loc(call), direct, event, idiom, candidates, fix_after, indent, guard_at))

    def _next_calls(self, start: cfg.Node, h: Handle) -> Set[str]:
        """The methods called on `h` first after `start`, on the paths that reach one before a
        release of `h` (a release ends a path; reading an attribute of `h` is no call)."""
        found: Set[str] = set()
        frontier = [s for p in self.graph.positions.get(start.elem, [start]) for s in p.succ]
        seen: Set[int] = set()
        while frontier:
            n = frontier.pop()
            if n.index in seen:
                continue
            seen.add(n.index)
            fx = self.node_fx[n.index]
            if fx is not None and n.elem is not start.elem:
                if any(r.key == h.key for r, _, _ in fx.releases):
                    continue
                called = {m for r, m, _, _ in fx.calls if r is not None and r.key == h.key}
                if called:
                    found |= called
                    continue
            frontier.extend(n.succ)
        return found

    def _nearest_release(self, start: cfg.Node, h: Handle) -> Tuple[Optional[Loc], str]:
        frontier = list(start.succ)
        seen: Set[int] = set()
        while frontier:
            n = frontier.pop(0)
            if id(n) in seen or n.elem is None and n.kind != cfg.ORDINARY:
                continue
            seen.add(id(n))
            if n.elem is not None:
                for r, idiom, at in self._effects(n).releases:
                    if r.key == h.key:
                        return self.f.loc(at), idiom
            frontier.extend(n.succ)
        return None, ""

    def _first_call(self, h: Handle, kind: str, name: str) -> Loc:
        key = h.key if kind == "self" else h.parent.key if h.parent is not None else None
        if self._first_calls is None:  # (receiver key, method) -> the first call; made once
            first: Dict[Tuple[str, str], Loc] = {}
            for fx in self.effects.values():
                for recv, method, call, _ in fx.calls:
                    if recv is not None:
                        loc = self.f.loc(call)
                        best = first.get((recv.key, method))
                        if best is None or loc < best:
                            first[(recv.key, method)] = loc
            self._first_calls = first
        return self._first_calls.get((key, name)) or (0, 0, 0)

    def _fix_anchor(self, elem) -> Tuple[Optional[Loc], str]:
        if not isinstance(elem, _SIMPLE_FIX) or getattr(elem, "end_lineno", None) is None:
            return None, ""
        line = self.f.line_text(elem.end_lineno)
        rest = line[elem.end_col_offset:].strip()
        if rest and not rest.startswith(b"#"):
            return None, ""  # `a(); b()`: no safe place for a line of its own
        first = self.f.line_text(elem.lineno)
        if first[:elem.col_offset].rstrip().endswith(b":"):
            return None, ""  # `if c: call()`: a line at the `if`'s indentation would run always
        indent = first[:len(first) - len(first.lstrip())].decode("utf-8", "replace")
        end = len(line) if rest else elem.end_col_offset  # after a trailing comment, not before
        return self.f.loc_at(elem.end_lineno, end), indent

    def _guard_anchor(self, elem) -> Optional[Loc]:
        """Where `if h is not None:` can go before `elem` (which has a fix anchor): a statement on
        a line of its own (nothing before it on the line, no continuation lines) that binds no
        name it did not have before, so that skipping it leaves every name as bound as it was: a
        call, or an assignment to names its value reads (`h = m.offload(h)`)."""
        if elem.lineno != elem.end_lineno or self.f.line_text(elem.lineno)[:elem.col_offset].strip():
            return None
        if isinstance(elem, ast.Expr) or isinstance(elem, ast.AugAssign) and \
                isinstance(elem.target, ast.Name):
            return self.f.loc(elem)
        targets = elem.targets if isinstance(elem, ast.Assign) else [elem.target]
        if elem.value is None or not all(isinstance(t, ast.Name) for t in targets):
            return None
        read = {n.id for n in ast.walk(elem.value) if isinstance(n, ast.Name)
                and isinstance(n.ctx, ast.Load)}
        return self.f.loc(elem) if all(t.id in read for t in targets) else None

    # -- MF004 dereferences ---------------------------------------------------------------------

    def _derefs(self, elems) -> None:
        done: Set[str] = set()
        flows: Dict[str, Tuple[List[int], List[str]]] = {}
        for node, fx in elems:
            for h, at, guarded in fx.derefs:
                if guarded or h.key in done or h.attr is None:
                    continue
                if h.key not in flows:
                    names: List[str] = []
                    flows[h.key] = (cfg.must_before_own(
                        self.graph, self._own(self._guard_events(h, names), h)), names)
                flow, names = flows[h.key]
                result = cfg.ALL
                for p in self.graph.positions.get(node.elem, [node]):
                    result &= flow[p.index]
                if result == cfg.ALL:
                    continue
                candidates = self._guard_candidates(h, result, names)
                if not candidates:
                    done.add(h.key)  # unguarded: one is enough for the rule
                self.f.derefs.append(DerefRaw(self.key, self.cls if h.through_self else None,
                                              h.attr, h.through_self, h.text, self.f.loc(at),
                                              candidates))

    def _guard_events(self, h: Handle, names: List[str]):
        index: Dict[str, int] = {}
        parent = h.parent.key if h.parent is not None else None

        def bit(label: str) -> int:
            if label not in index:
                index[label] = len(names)
                names.append(label)
            return 1 << index[label]

        def events(n: cfg.Node) -> int:
            fx = self.node_fx[n.index]
            if fx is None:
                return 0
            # Any store of a value assigns (`= []` too); a store into an element or in place
            # (`h[k] = v`, `h += v`) uses what is there.
            if any(a.key == h.key and idiom not in IN_PLACE_IDIOMS for a, idiom, _, _ in fx.assigns) \
                    or any(r.key == h.key and idiom not in NULLING_IDIOMS for r, idiom, _ in fx.releases):
                return cfg.ALL
            if n.kind == cfg.CONDITION and any(t.key == h.key for t in fx.tests):
                return cfg.ALL
            bits = 0
            for recv, method, _, certain in fx.calls:
                if recv is None or recv.key != parent:
                    continue
                if certain:
                    bits |= bit("assign:" + method)
                if n.kind == cfg.CONDITION:
                    bits |= bit("check:" + method)
            return bits
        return events

    def _guard_candidates(self, h: Handle, result: int, names: List[str]) -> List[Candidate]:
        out: Dict[str, List[bool]] = {}
        for i, label in enumerate(names):
            kind, method = label.split(":", 1)
            flags = out.setdefault(method, [False, False])
            if result >> i & 1:
                flags[0 if kind == "assign" else 1] = True
        return [Candidate("owner", m, self._first_call(h, "owner", m), a, c)
                for m, (a, c) in out.items()]

    # -- calls between functions, predicates ----------------------------------------------------

    def _edges(self, elems) -> None:
        seen: Set[Tuple[str, str, bool]] = set()
        for _, fx in elems:
            for recv, method, call, _ in fx.calls:
                if recv is not None and recv.is_self:
                    self._edge("self", method, True, call, seen)
                elif recv is None and isinstance(call.func, ast.Attribute) and \
                        isinstance(call.func.value, ast.Call) and dotted(call.func.value.func) == "super":
                    self._edge("super", method, True, call, seen)
            for n in fx.plain:
                name = dotted(n.func)
                target = self.f.qualify(name) if name else None
                if target:
                    self._edge("name", target, False, n, seen)

    def _edge(self, kind: str, target: str, on_this: bool, call, seen) -> None:
        if (kind, target, on_this) in seen:
            return
        seen.add((kind, target, on_this))
        self.f.edges.append(EdgeRaw(self.key, kind, self.cls, target, on_this, self.f.loc(call)))

    def _null_tests(self) -> Optional[List[str]]:
        """For a method: the attributes of self that every `return` tests (a predicate)."""
        if self.self_name is None:
            return None
        common: Optional[Set[str]] = None
        for n in self.returns:
            if n.value is None:
                return None
            found: List[Handle] = []
            tested(self.scope, n.value, found)
            attrs = {h.attr for h in found if h.through_self}
            common = attrs if common is None else common & attrs
        return sorted(common) if common else None


def _elem_pos(p: Tuple[cfg.Node, Effects]) -> Tuple[int, int]:
    return _pos(p[0].elem)


def _pos(elem) -> Tuple[int, int]:
    if type(elem) is cfg.WithExit:
        elem = elem.stmt
        return (getattr(elem, "end_lineno", elem.lineno) or elem.lineno, 1 << 20)
    return (getattr(elem, "lineno", 0), getattr(elem, "col_offset", 0))
