"""Handles (the expressions that name an object: `self`, a local, `self.x.y`, `getattr(o, "x")`) and
what an element of a function does to them: stores, releases, calls, dereferences, null tests."""

from __future__ import annotations

import ast
import builtins
from typing import Dict, List, Optional, Set, Tuple

from .node_fields import CHILD_FIELDS, child_nodes

SELF, LOCAL, PARAM, GLOBAL = "self", "local", "param", "global"
_BUILTINS = frozenset(dir(builtins))
_STORAGE_GETTERS = frozenset({"untyped_storage", "storage", "_typed_storage"})
_EMPTY_CALLS = frozenset({"list", "dict", "set", "tuple", "OrderedDict", "defaultdict", "deque"})
PY_STORE_METHODS = ("append", "extend", "insert", "add", "update", "setdefault", "appendleft", "put")
# Calls that take one element out: the container is managed (MF002), but not released (MF001).
REMOVAL_METHODS = frozenset({"pop", "popitem", "popleft", "remove", "discard"})
REMOVAL_IDIOMS = frozenset({"del []"} | {"." + m + "()" for m in REMOVAL_METHODS})
# Releases that leave the handle None (a later dereference fails); `= []` and the other empty
# values are releases too, but they leave an object to use.
NULLING_IDIOMS = frozenset({"= None", "del", "setattr = None"})
# Stores that write into the object the handle holds rather than binding a new one.
IN_PLACE_IDIOMS = frozenset({"[] = value", "+= value"})


class Handle:
    __slots__ = ("key", "text", "attr", "parent", "root")

    def __init__(self, key: str, text: str, attr: Optional[str], parent: Optional["Handle"], root: str):
        self.key = key  # identity within the function
        self.text = text  # as written, aliases replaced by what they alias
        self.attr = attr  # the last attribute of a chain; None for a variable or self
        self.parent = parent  # the handle this one is an attribute of
        self.root = root  # SELF, LOCAL, PARAM or GLOBAL

    @property
    def through_self(self) -> bool:
        return self.parent is not None and self.parent.root == SELF and self.parent.attr is None

    @property
    def is_self(self) -> bool:
        return self.root == SELF and self.attr is None


class Scope:
    """The names of one function: its own object, parameters, locals and the aliases among them."""

    def __init__(self, self_name: Optional[str], params: Set[str], local_names: Set[str],
                 module_globals: Set[str], non_objects: Set[str]):
        self.self_name = self_name
        self.params = params
        self.locals = local_names
        self.globals = module_globals  # assigned at module level
        self.non_objects = non_objects  # bound by import, def or class: not objects we track
        self.aliases: Dict[str, Handle] = {}
        self.memo: Optional[Dict[object, Optional[Handle]]] = None  # id(chain link), or a name -> its handle

    def name(self, name: str) -> Optional[Handle]:
        if name == self.self_name:
            return Handle(SELF, name, None, None, SELF)
        alias = self.aliases.get(name)
        if alias is not None:
            return alias
        if name in self.locals:
            return Handle(name, name, None, None, LOCAL)
        if name in self.params:
            return Handle(name, name, None, None, PARAM)
        if name in self.non_objects or name in _BUILTINS and name not in self.globals:
            return None
        if name in self.globals:
            return Handle("::" + name, name, None, None, GLOBAL)
        return Handle(name, name, None, None, PARAM)  # a closure's free variable

    def target(self, e: ast.expr) -> Optional[Handle]:
        """The handle an assignment or `del` rebinds: a name is itself, not what it aliases."""
        if isinstance(e, ast.Name) and e.id in self.aliases:
            return Handle(e.id, e.id, None, None, LOCAL)
        return self.handle(e)

    def handle(self, e: ast.expr) -> Optional[Handle]:
        # A loop, not recursion: an attribute chain may be as long as the source allows. While
        # one element is walked (`memo` set), each link's handle is made once and shared, so a
        # chain of n links costs n handles, not n * n / 2.
        memo = self.memo
        chain: List[Tuple[ast.AST, str]] = []
        h: Optional[Handle] = None
        while True:
            t = type(e)
            if t is ast.Name:  # in the memo by its name (str keys), the links by id (int keys)
                if memo is None:
                    h = self.name(e.id)
                else:
                    h = memo.get(e.id, memo)
                    if h is memo:
                        h = memo[e.id] = self.name(e.id)
                break
            if memo is not None and id(e) in memo:
                h = memo[id(e)]
                break
            if t is ast.Attribute:
                chain.append((e, e.attr))
                e = e.value
            elif t is ast.Call and _is_getattr(e):
                chain.append((e, e.args[1].value))
                e = e.args[0]
            else:
                break
        for node, attr in reversed(chain):
            if h is not None:
                h = Handle(h.key + "." + attr, h.text + "." + attr, attr, h, h.root)
            if memo is not None:
                memo[id(node)] = h
        return h

    def _attribute(self, value: ast.expr, attr: str) -> Optional[Handle]:
        parent = self.handle(value)
        if parent is None:
            return None
        return Handle(parent.key + "." + attr, parent.text + "." + attr, attr, parent, parent.root)


def _is_name(e: ast.expr, name: str) -> bool:
    return isinstance(e, ast.Name) and e.id == name


def _is_getattr(c: ast.Call) -> bool:
    """`getattr(o, "name")` or `getattr(o, "name", default)`."""
    return _is_name(c.func, "getattr") and 2 <= len(c.args) <= 3 \
        and isinstance(c.args[1], ast.Constant) and isinstance(c.args[1].value, str)


def is_none(e: Optional[ast.expr]) -> bool:
    return isinstance(e, ast.Constant) and e.value is None


def empty_value(e: ast.expr) -> Optional[str]:
    """The release idiom `= None`, `= []` ... when `e` leaves a handle empty."""
    if is_none(e):
        return "= None"
    if isinstance(e, (ast.List, ast.Tuple, ast.Set)) and not e.elts:
        return "= []"
    if isinstance(e, ast.Dict) and not e.keys:
        return "= {}"
    if isinstance(e, ast.Call) and not e.args and not e.keywords:
        f = e.func
        name = f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else ""
        if name in _EMPTY_CALLS:
            return "= " + name + "()"
    return None


def tested(scope: Scope, e: ast.expr, out: List[Handle]) -> None:
    """The handles `e` tests for None or truthiness: `h is not None`, `h`, `not h`, `bool(h)`,
    `isinstance(h, T)`, `hasattr(o, "x")`, `getattr(o, "x", None)`, `(m := h) is not None`."""
    stack = [e]  # depth first, left to right, without recursion (`not not ... h` may be deep)
    while stack:
        e = stack.pop()
        if isinstance(e, ast.NamedExpr):
            stack.append(e.value)
            continue
        h = scope.handle(e)
        if h is not None:
            out.append(h)
            continue
        if isinstance(e, ast.UnaryOp) and isinstance(e.op, ast.Not):
            stack.append(e.operand)
        elif isinstance(e, ast.BoolOp):
            stack.extend(reversed(e.values))
        elif isinstance(e, ast.Compare) and len(e.ops) == 1:
            left, right = e.left, e.comparators[0]
            if isinstance(e.ops[0], (ast.Is, ast.IsNot, ast.Eq, ast.NotEq)):
                if is_none(right):
                    stack.append(left)
                elif is_none(left):
                    stack.append(right)
        elif isinstance(e, ast.Call) and isinstance(e.func, ast.Name) and e.args:
            f = e.func.id
            if f in ("bool", "isinstance", "callable", "len"):
                stack.append(e.args[0])
            elif f == "hasattr" and len(e.args) == 2:
                name = e.args[1]
                if isinstance(name, ast.Constant) and isinstance(name.value, str):
                    h = scope._attribute(e.args[0], name.value)
                    if h is not None:
                        out.append(h)


class Effects:
    """What evaluating one element does. `calls` are (receiver or None, method, call node, certain):
    certain when evaluated whenever the element is (not in a branch of `x if c else y`, after
    `and`/`or`, or in a comprehension); `derefs` are (handle, node, guarded by a test around it)."""

    __slots__ = ("releases", "assigns", "calls", "derefs", "tests", "plain", "removals")

    def __init__(self):
        self.releases: List[Tuple[Handle, str, ast.AST]] = []
        self.assigns: List[Tuple[Handle, str, Optional[ast.expr], ast.AST]] = []
        self.calls: List[Tuple[Optional[Handle], str, ast.Call, bool]] = []
        self.derefs: List[Tuple[Handle, ast.AST, bool]] = []
        self.tests: List[Handle] = []
        self.plain: List[ast.Call] = []  # calls of a function or a class, `f()` or `mod.f()`
        self.removals: List[Tuple[Handle, str, ast.AST]] = []  # `del h[k]`, `h.pop(k)`


_COMPREHENSIONS = frozenset({ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp})
# What EffectWalker._expr passes over (a name's handle is asked by its parent): not pushed at all.
_INERT = frozenset({ast.Name, ast.Constant, ast.Lambda, type(None)})
# One node for EffectWalker._expr to walk: the node, whether it is on every path, the guards.
_Visit = Tuple[ast.AST, bool, frozenset]
_NO_GUARDS: frozenset = frozenset()


class EffectWalker:
    def __init__(self, scope: Scope, release_methods: Set[str], store_methods: Set[str]):
        self.scope = scope
        self.release_methods = release_methods
        self.store_methods = store_methods

    def element(self, elem, condition: bool) -> Effects:
        # The scope does not change while one element is walked: its handles can be shared.
        self.scope.memo = {}
        try:
            return self._element(elem, condition)
        finally:
            self.scope.memo = None

    def _element(self, elem, condition: bool) -> Effects:
        fx = Effects()
        if isinstance(elem, ast.stmt):
            self._statement(elem, fx)
        elif isinstance(elem, ast.excepthandler):
            if elem.type is not None:
                self._expr(elem.type, fx, True, _NO_GUARDS)
        elif isinstance(elem, ast.AST):
            if condition:
                tested(self.scope, elem, fx.tests)
            self._target_or_expr(elem, fx)
        return fx

    def _target_or_expr(self, e: ast.AST, fx: Effects) -> None:
        if isinstance(e, ast.expr) and isinstance(getattr(e, "ctx", None), ast.Store):
            self._store_target(e, None, fx, "= value")
        else:
            self._expr(e, fx, True, _NO_GUARDS)

    def _statement(self, s: ast.stmt, fx: Effects) -> None:
        kind = type(s)  # the parser makes no subclasses of its node types: `is` tells the type
        if kind is ast.Expr:  # a call standing alone, the most common statement
            self._expr(s.value, fx, True, _NO_GUARDS)
        elif kind is ast.Assign:
            self._expr(s.value, fx, True, _NO_GUARDS)
            for t in s.targets:
                self._assign(t, s.value, fx)
        elif kind is ast.AnnAssign:
            if s.value is not None:
                self._expr(s.value, fx, True, _NO_GUARDS)
                self._assign(s.target, s.value, fx)
        elif kind is ast.AugAssign:
            self._expr(s.value, fx, True, _NO_GUARDS)
            self._store_target(s.target, s.value, fx, "+= value")
        elif kind is ast.Delete:
            for t in s.targets:
                h = self.scope.target(t)
                if h is not None:
                    fx.releases.append((h, "del", s))
                elif isinstance(t, ast.Subscript):
                    self._element_store(t, fx, release=True)
                else:
                    self._expr(t, fx, True, _NO_GUARDS)
        elif kind is ast.With or kind is ast.AsyncWith:
            for item in s.items:
                self._expr(item.context_expr, fx, True, _NO_GUARDS)
                if item.optional_vars is not None:
                    self._store_target(item.optional_vars, None, fx, "= value")
        elif kind is ast.FunctionDef or kind is ast.AsyncFunctionDef or kind is ast.ClassDef:
            for d in s.decorator_list:
                self._expr(d, fx, True, _NO_GUARDS)
        else:
            for child in child_nodes(s):
                if isinstance(child, ast.expr):
                    self._expr(child, fx, True, _NO_GUARDS)

    def _assign(self, target: ast.expr, value: Optional[ast.expr], fx: Effects) -> None:
        if isinstance(target, (ast.Tuple, ast.List)):
            values = value.elts if isinstance(value, (ast.Tuple, ast.List)) and \
                len(value.elts) == len(target.elts) else [None] * len(target.elts)
            for t, v in zip(target.elts, values):
                self._assign(t, v, fx)
            return
        idiom = empty_value(value) if value is not None else None
        if idiom is not None:
            h = self.scope.target(target)
            if h is not None:
                fx.releases.append((h, idiom, target))
                return
        self._store_target(target, value, fx, "= value")

    def _store_target(self, t: ast.expr, value: Optional[ast.expr], fx: Effects, idiom: str) -> None:
        if isinstance(t, ast.Starred):
            t = t.value
        if isinstance(t, (ast.Tuple, ast.List)):
            for e in t.elts:
                self._store_target(e, None, fx, idiom)
            return
        h = self.scope.target(t)
        if h is not None:
            fx.assigns.append((h, idiom, value, t))
            if isinstance(t, ast.Attribute):
                self._deref_parent(t.value, t, fx, _NO_GUARDS)
            return
        if isinstance(t, ast.Subscript):
            self._element_store(t, fx, release=False, value=value)
        elif not isinstance(t, ast.Name):
            self._expr(t, fx, True, _NO_GUARDS)

    def _element_store(self, t: ast.Subscript, fx: Effects, release: bool, value=None) -> None:
        h = self.scope.handle(t.value)
        if h is not None:
            if release:
                fx.removals.append((h, "del []", t))
            else:
                fx.assigns.append((h, "[] = value", value, t))
        self._expr(t.value, fx, True, _NO_GUARDS)
        self._expr(t.slice, fx, True, _NO_GUARDS)

    def _deref_parent(self, value: ast.expr, node: ast.AST, fx: Effects, guards) -> None:
        h = self.scope.handle(value)
        if h is not None and h.attr is not None:
            fx.derefs.append((h, node, h.key in guards))

    def _expr(self, e: ast.AST, fx: Effects, certain: bool, guards: frozenset) -> None:
        """Walks `e` depth first, left to right, each node's own effects before its children's.
        An explicit stack, not recursion: `a + a + ...` or `x.y.y...` nests as deep as the source
        is long, and Python's recursion limit must not decide which files are checked. The stack
        holds nodes, and (certain, guards) pairs where the nodes after them (popped later) are
        walked in another context: the branches of `x if c else y`, the operands after the first
        of `and`/`or`, the parts of a comprehension; a pair after them restores the context."""
        stack: List[object] = [e]
        pop, push = stack.pop, stack.append
        fields_of = CHILD_FIELDS.get
        while stack:
            e = pop()
            t = type(e)
            if t is tuple:
                certain, guards = e
                continue
            if t is ast.Attribute:
                v = e.value
                self._deref_parent(v, e, fx, guards)
                if type(v) not in _INERT:
                    push(v)
                continue
            if t is ast.Subscript:
                v = e.value
                self._deref_parent(v, e, fx, guards)
                if type(e.slice) not in _INERT:
                    push(e.slice)
                if type(v) not in _INERT:
                    push(v)
                continue
            if t is ast.Call:
                stack.extend(reversed(self._call(e, fx, certain, guards)))
                continue
            if t is ast.Name or t is ast.Constant or t is ast.Lambda:
                continue
            if t is ast.IfExp:
                inner = guards | self._tested_keys(e.test)
                children = [(e.test, certain, guards), (e.body, False, inner), (e.orelse, False, inner)]
            elif t is ast.BoolOp:
                children = []
                inner = guards
                for i, v in enumerate(e.values):
                    children.append((v, certain and i == 0, inner))
                    inner = inner | self._tested_keys(v)
            elif t in _COMPREHENSIONS:
                children = self._comprehension(e, certain, guards)
            else:  # the children, first on top; what is no node (None, a value) pops as nothing
                for name in reversed(fields_of(t, ())):
                    v = getattr(e, name)
                    if type(v) is list:
                        for x in reversed(v):
                            if type(x) not in _INERT:
                                push(x)
                    elif type(v) not in _INERT:
                        push(v)
                continue
            push((certain, guards))  # back to this context after the children
            for child, c, g in reversed(children):
                push(child)
                push((c, g))

    def _tested_keys(self, e: ast.expr) -> frozenset:
        out: List[Handle] = []
        tested(self.scope, e, out)
        return frozenset(h.key for h in out)

    def _comprehension(self, e, certain: bool, guards: frozenset) -> List[_Visit]:
        children: List[_Visit] = []
        inner = guards
        for i, gen in enumerate(e.generators):
            children.append((gen.iter, certain and i == 0, inner))
            for cond in gen.ifs:
                children.append((cond, False, inner))
                inner = inner | self._tested_keys(cond)
        if isinstance(e, ast.DictComp):
            children.append((e.key, False, inner))
            children.append((e.value, False, inner))
        else:
            children.append((e.elt, False, inner))
        return children

    def _call(self, c: ast.Call, fx: Effects, certain: bool, guards: frozenset) -> List[ast.AST]:
        """The call's own effects; returns what `_expr` walks next in the same context (receiver
        or callee, arguments), names and constants left out."""
        f = c.func
        children: List[ast.AST] = []
        t = type(f)
        if t is ast.Attribute:
            recv = self.scope.handle(f.value)
            fx.calls.append((recv, f.attr, c, certain))
            if recv is None:
                fx.plain.append(c)
            if recv is not None:
                if recv.attr is not None:
                    fx.derefs.append((recv, c, recv.key in guards))
                if f.attr in REMOVAL_METHODS:
                    fx.removals.append((recv, "." + f.attr + "()", c))
                elif f.attr in self.release_methods:
                    fx.releases.append((recv, "." + f.attr + "()", c))
                elif f.attr in self.store_methods:
                    fx.assigns.append((recv, "." + f.attr + "()", c.args[0] if c.args else None, c))
            elif f.attr == "resize_" and len(c.args) == 1 and isinstance(c.args[0], ast.Constant) \
                    and c.args[0].value == 0 and isinstance(f.value, ast.Call) \
                    and isinstance(f.value.func, ast.Attribute) and f.value.func.attr in _STORAGE_GETTERS:
                tensor = self.scope.handle(f.value.func.value)
                if tensor is not None:
                    fx.releases.append((tensor, "." + f.value.func.attr + "().resize_(0)", c))
            if type(f.value) not in _INERT:
                children.append(f.value)
        elif t is ast.Name and f.id == "setattr" and len(c.args) == 3:
            name = c.args[1]
            if isinstance(name, ast.Constant) and isinstance(name.value, str):
                h = self.scope._attribute(c.args[0], name.value)
                if h is not None:
                    idiom = empty_value(c.args[2])
                    if idiom is not None:
                        fx.releases.append((h, "setattr " + idiom, c))
                    else:
                        fx.assigns.append((h, "setattr", c.args[2], c))
        elif t is ast.Name:
            fx.plain.append(c)
        else:
            children.append(f)
        if c.args:
            children.extend([a for a in c.args if type(a) not in _INERT])
        if c.keywords:
            children.extend([k.value for k in c.keywords if type(k.value) not in _INERT])
        return children
