"""A function body's control-flow graph, one node per evaluated element, and the two path questions.

Nodes stand for a simple statement, a branch condition, a loop's next item, a `with` statement's
entry or exit. Exceptions raised inside a `try` with handlers leave any node of its body for the
handlers (before the node's own effect); `finally` bodies and `with` exits are copied onto every way
out (normal, return, raise, break, continue). Paths that end in a raise count as passing every
question, as in the C++ front end (a noreturn call or a throw).
"""

from __future__ import annotations

import ast
from typing import Callable, Dict, List, Optional, Tuple

ORDINARY, EXIT, RAISE, CONDITION = 0, 1, 2, 3
ALL = -1  # the set of every label, as a bit mask


class WithExit:
    """The synthetic element at a `with` statement's exit: its context managers' __exit__ calls."""

    __slots__ = ("stmt",)

    def __init__(self, stmt: ast.stmt):
        self.stmt = stmt


class Node:
    __slots__ = ("elem", "succ", "exc", "kind", "index")

    def __init__(self, elem, kind: int, index: int):
        self.elem = elem  # an ast node, a WithExit, or None
        self.succ: List["Node"] = []
        self.exc: List["Node"] = []  # where an exception raised while evaluating it goes
        self.kind = kind
        self.index = index  # in Graph.nodes


class _Targets:
    __slots__ = ("ret", "raise_", "brk", "cont", "exc")

    def __init__(self, ret, raise_, brk=None, cont=None, exc=None):
        self.ret, self.raise_, self.brk, self.cont, self.exc = ret, raise_, brk, cont, exc

    def replace(self, **changes) -> "_Targets":
        t = _Targets(self.ret, self.raise_, self.brk, self.cont, self.exc)
        for name, value in changes.items():
            setattr(t, name, value)
        return t


# Statements that go on to the next: the most common, answered first.
_PLAIN_STATEMENTS = frozenset({ast.Expr, ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Pass})


def _always_true(test: ast.expr) -> bool:
    return isinstance(test, ast.Constant) and bool(test.value)


class Graph:
    """The graph of `body`; `positions` maps each element to its nodes (finally bodies are copied)."""

    def __init__(self, body: List[ast.stmt]):
        self.exit = Node(None, EXIT, 0)
        self.raise_exit = Node(None, RAISE, 1)
        self.nodes: List[Node] = [self.exit, self.raise_exit]
        self.positions: Dict[object, List[Node]] = {}
        self._preds: Optional[List[List[Node]]] = None
        self._into: Optional[List[List[Tuple[Node, bool]]]] = None
        self.entry = self._new(None)
        self.entry.succ.append(self._block(body, self.exit, _Targets(self.exit, self.raise_exit)))

    # -- building -------------------------------------------------------------------------------

    def _new(self, elem, kind: int = ORDINARY, targets: Optional[_Targets] = None) -> Node:
        node = Node(elem, kind, len(self.nodes))
        self.nodes.append(node)
        if elem is not None:
            self.positions.setdefault(elem, []).append(node)
        if targets is not None and targets.exc is not None:
            node.exc.append(targets.exc)
        return node

    def _simple(self, elem, succ: Optional[Node], t: _Targets, kind: int = ORDINARY) -> Node:
        node = self._new(elem, kind, t)
        if succ is not None:
            node.succ.append(succ)
        return node

    def _block(self, stmts: List[ast.stmt], nxt: Node, t: _Targets) -> Node:
        for s in reversed(stmts):
            nxt = self._stmt(s, nxt, t)
        return nxt

    def _stmt(self, s: ast.stmt, nxt: Node, t: _Targets) -> Node:
        kind = type(s)
        builder = _BUILDERS.get(kind.__name__)
        if builder is not None:
            return builder(self, s, nxt, t)
        if kind in _PLAIN_STATEMENTS:
            return self._simple(s, nxt, t)
        if kind is ast.Return:
            return self._simple(s, t.ret, t)
        if kind is ast.Raise:
            return self._simple(s, t.raise_, t)
        if kind is ast.Break:
            return self._simple(s, t.brk if t.brk is not None else nxt, t)
        if kind is ast.Continue:
            return self._simple(s, t.cont if t.cont is not None else nxt, t)
        if kind is ast.Assert:
            node = self._simple(s.test, nxt, t, CONDITION)
            node.succ.append(t.raise_)
            return node
        return self._simple(s, nxt, t)

    def _if(self, s: ast.If, nxt: Node, t: _Targets) -> Node:
        node = self._new(s.test, CONDITION, t)
        node.succ.append(self._block(s.body, nxt, t))
        node.succ.append(self._block(s.orelse, nxt, t) if s.orelse else nxt)
        return node

    def _while(self, s: ast.While, nxt: Node, t: _Targets) -> Node:
        head = self._new(s.test, CONDITION, t)
        after = self._block(s.orelse, nxt, t) if s.orelse else nxt
        head.succ.append(self._block(s.body, head, t.replace(brk=nxt, cont=head)))
        if not _always_true(s.test):
            head.succ.append(after)
        return head

    def _for(self, s, nxt: Node, t: _Targets) -> Node:
        head = self._new(s.target, ORDINARY, t)  # binds the next item
        after = self._block(s.orelse, nxt, t) if s.orelse else nxt
        head.succ.append(self._block(s.body, head, t.replace(brk=nxt, cont=head)))
        head.succ.append(after)
        return self._simple(s.iter, head, t)

    def _with(self, s, nxt: Node, t: _Targets) -> Node:
        exit_elem = WithExit(s)
        through, inner = self._through(t, lambda target: self._simple(exit_elem, target, t))
        return self._simple(s, self._block(s.body, through(nxt), inner), t)

    def _try(self, s, nxt: Node, t: _Targets) -> Node:
        if s.finalbody:
            final, outer = self._through(t, lambda target: self._block(s.finalbody, target, t))
            after = final(nxt)
        else:
            outer, after = t, nxt
        orelse = self._block(s.orelse, after, outer) if s.orelse else after
        if not s.handlers:
            return self._block(s.body, orelse, outer)
        dispatch = self._new(None)
        for h in s.handlers:
            entry = self._simple(h, self._block(h.body, after, outer), outer)
            dispatch.succ.append(entry)
        if not any(h.type is None for h in s.handlers):
            dispatch.succ.append(outer.raise_)
        return self._block(s.body, orelse, outer.replace(raise_=dispatch, exc=dispatch))

    def _through(self, t: _Targets, make: Callable[[Node], Node]):
        """Every way out of a block (normal, return, raise, break, continue, exception) first
        passing a copy of what `make` builds before the target (a finally body, a with exit):
        the function that gives the copy for a target, and the targets inside the block."""
        copies: Dict[int, Node] = {}

        def through(target: Optional[Node]) -> Optional[Node]:
            if target is None:
                return None
            if id(target) not in copies:
                copies[id(target)] = make(target)
            return copies[id(target)]

        inner = t.replace(ret=through(t.ret), raise_=through(t.raise_), brk=through(t.brk),
                          cont=through(t.cont), exc=through(t.exc))
        return through, inner

    def _match(self, s, nxt: Node, t: _Targets) -> Node:
        node = self._new(s.subject, ORDINARY, t)
        for case in s.cases:
            node.succ.append(self._block(case.body, nxt, t))
        node.succ.append(nxt)
        return node

    def close(self) -> None:
        """Breaks the graph's cycles (a loop's way back to its head) once its questions are
        answered, so that reference counting frees it and the syntax its nodes hold right away:
        left to the cycle collector, they are half a million objects on torch/ that its pass
        after each file must walk first."""
        for n in self.nodes:
            n.succ.clear()
            n.exc.clear()

    # -- questions ------------------------------------------------------------------------------

    def predecessors(self) -> List[List[Node]]:
        """Each node's predecessors by index, along normal and exception edges (made once)."""
        if self._preds is None:
            preds: List[List[Node]] = [[] for _ in self.nodes]
            for n in self.nodes:
                for s in n.succ:
                    preds[s.index].append(n)
                for s in n.exc:
                    preds[s.index].append(n)
            self._preds = preds
        return self._preds

    def entering(self) -> List[List[Tuple[Node, bool]]]:
        """Each node's incoming edges by index: (predecessor, True for a normal edge, False for
        an exception edge), made once."""
        if self._into is None:
            into: List[List[Tuple[Node, bool]]] = [[] for _ in self.nodes]
            for n in self.nodes:
                for s in n.succ:
                    into[s.index].append((n, True))
                for s in n.exc:
                    into[s.index].append((n, False))
            self._into = into
        return self._into


_BUILDERS = {
    "If": Graph._if,
    "While": Graph._while,
    "For": Graph._for,
    "AsyncFor": Graph._for,
    "With": Graph._with,
    "AsyncWith": Graph._with,
    "Try": Graph._try,
    "TryStar": Graph._try,
    "Match": Graph._match,
}


def must_after(graph: Graph, events: Callable[[Node], int]) -> List[int]:
    """For each node n (by index), the labels L such that every path from n (n included) to the
    exit passes a node whose events hold L; ALL where every path ends in a raise or passes a node
    whose events are ALL. The greatest fixed point (loops that never exit satisfy everything)."""
    return must_after_own(graph, [events(n) for n in graph.nodes])


def must_after_own(graph: Graph, own: List[int]) -> List[int]:
    """must_after with each node's events given by index (those of the exits are not read)."""
    preds = graph.predecessors()
    value = [ALL] * len(graph.nodes)
    value[graph.exit.index] = 0
    # A node's successors were made before it (but for loops' ways back and a try's handlers):
    # taken in the order they were made, most nodes are visited once, with their successors'
    # values final. A node that changes queues its predecessors again, unless they still wait.
    work = list(reversed(graph.nodes))
    waiting = [True] * len(graph.nodes)
    while work:
        n = work.pop()
        waiting[n.index] = False
        if n.kind == EXIT or n.kind == RAISE:
            continue
        new = own[n.index]
        if new != ALL:
            later = ALL
            for s in n.succ:
                later &= value[s.index]
            for s in n.exc:
                later &= value[s.index]
            new |= later
        if new != value[n.index]:
            value[n.index] = new
            for p in preds[n.index]:
                if not waiting[p.index]:
                    waiting[p.index] = True
                    work.append(p)
    return value


def must_before(graph: Graph, events: Callable[[Node], int]) -> List[int]:
    """For each node n (by index), the labels L such that every path from the entry to n (n
    excluded) passes a node whose events hold L. `events(n)` is what passing n gives (ALL for an
    assignment); an exception edge leaves a node before its effect."""
    return must_before_own(graph, [events(n) for n in graph.nodes])


def must_before_own(graph: Graph, own: List[int]) -> List[int]:
    """must_before with each node's events given by index."""
    into = graph.entering()
    value = [ALL] * len(graph.nodes)
    value[graph.entry.index] = 0
    work = [graph.entry]
    while work:
        n = work.pop()
        for s in n.succ + n.exc:
            if s is graph.entry:
                continue
            new = ALL
            for p, passed in into[s.index]:
                new &= (value[p.index] | own[p.index]) if passed else value[p.index]
            if new != value[s.index]:
                value[s.index] = new
                work.append(s)
    return value
