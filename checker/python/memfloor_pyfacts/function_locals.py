"""One walk of a function body, before its graph: its locals and where their values come from, the
names whose objects it hands on, its returns and the functions and classes defined in it; and
whether an expression there makes or names a tensor (heavy.py), which depends on them."""

from __future__ import annotations

import ast
from typing import Dict, List, Optional, Set, Tuple

from .heavy import dotted, tensor_producing
from .node_fields import CHILD_FIELDS

_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
_SCOPE_TYPES = frozenset(_SCOPES)
# The nodes BodyNames._collect looks at; the others are passed over at the cost of one set lookup.
_BINDERS = frozenset({
    ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Global, ast.Nonlocal, ast.Assign,
    ast.AnnAssign, ast.NamedExpr, ast.For, ast.AsyncFor, ast.comprehension, ast.withitem,
    ast.AugAssign, ast.ExceptHandler, ast.Return, ast.Yield, ast.YieldFrom, ast.Call})


def own_nodes(body: List[ast.stmt], wanted: frozenset) -> List[ast.AST]:
    """The nodes of the types in `wanted` in a function body outside nested functions, classes and
    lambdas (whose decorators and defaults are the body's), depth first, a node before its
    children, the last child first. Values that are no nodes (None in `Dict.keys`, a constant)
    may go on the stack: they are not in the plan, so popping them costs one lookup, as does
    popping a node with no children worth walking that is not wanted (a name, `pass`)."""
    plan = _plans.get(wanted)
    if plan is None:
        plan = _plans[wanted] = _plan(wanted)
    found: List[ast.AST] = []
    stack: List[object] = list(reversed(body))
    pop, push, extend, keep = stack.pop, stack.append, stack.extend, found.append
    step = plan.get
    while stack:
        n = pop()
        entry = step(type(n))
        if entry is None:
            continue
        kept, fields = entry
        if kept:
            keep(n)
        if fields is None:  # a nested scope or a lambda
            t = type(n)
            if t is not ast.Lambda:
                extend(n.decorator_list)
                if t is not ast.ClassDef:
                    extend(n.args.defaults)
            continue
        for name in fields:
            v = getattr(n, name)
            if type(v) is list:
                extend(v)
            else:
                push(v)
    return found


# wanted -> {node type: (wanted?, the fields to walk, or None for a nested scope or a lambda)};
# the types neither wanted nor with fields to walk are left out.
_plans: Dict[frozenset, Dict[type, Tuple[bool, Optional[Tuple[str, ...]]]]] = {}


def _plan(wanted: frozenset) -> Dict[type, Tuple[bool, Optional[Tuple[str, ...]]]]:
    plan: Dict[type, Tuple[bool, Optional[Tuple[str, ...]]]] = {}
    for t, fields in CHILD_FIELDS.items():
        if t in _SCOPE_TYPES or t is ast.Lambda:
            plan[t] = (t in wanted, None)
        elif fields or t in wanted:
            plan[t] = (t in wanted, fields)
    return plan


# Values that make a fresh object the function owns, not one that outlives it.
_PLAIN_VALUES = frozenset({
    ast.Constant, ast.List, ast.Tuple, ast.Dict, ast.Set, ast.ListComp, ast.DictComp, ast.SetComp,
    ast.GeneratorExp, ast.Lambda, ast.JoinedStr, ast.BinOp, ast.Compare, ast.BoolOp, ast.UnaryOp})


class LocalInfo:
    __slots__ = ("persistent", "ctors", "heavy", "origins")

    def __init__(self):
        self.persistent = False  # taken from an attribute, an element, a parameter, a call's result
        self.ctors: Set[str] = set()  # or from calls that may be constructors
        self.heavy = False
        self.origins: List[Optional[ast.expr]] = []


class BodyNames:
    """The names of one function body (FunctionScan's first step)."""

    def __init__(self, file, body: List[ast.stmt], params: Set[str]):
        self.f = file  # file_scan.FileScan: heavy names, qualified names, store methods
        self.locals: Dict[str, LocalInfo] = {}
        self.escapes: Set[str] = set()  # locals whose objects the body hands on
        self.returns: List[ast.Return] = []
        self.nested: List[ast.AST] = []  # functions and classes defined in the body
        self._collect(body, params)

    def _collect(self, body: List[ast.stmt], params: Set[str]) -> None:
        """One walk of the body: locals and where they come from, returns, nested scopes."""
        declared: Set[str] = set()
        store_methods = self.f.store_methods
        for n in own_nodes(body, _BINDERS):
            t = type(n)
            if t is ast.Call:  # the most common by far: first
                if type(n.func) is ast.Attribute and n.func.attr in store_methods:
                    for a in n.args:
                        self._escape(a)
            elif t is ast.Assign:
                for target in n.targets:
                    self._bind(target, n.value, params)
            elif t is ast.AnnAssign or t is ast.NamedExpr:
                self._bind(n.target, n.value, params)
            elif t is ast.For or t is ast.AsyncFor or t is ast.comprehension:
                self._bind(n.target, None, params)
            elif t is ast.withitem:
                if n.optional_vars is not None:
                    self._bind_managed(n.optional_vars, n.context_expr, params)
            elif t is ast.AugAssign:
                self._bind(n.target, n, params)
            elif t in _SCOPE_TYPES:
                self.nested.append(n)
            elif t is ast.Global or t is ast.Nonlocal:
                declared.update(n.names)
            elif t is ast.ExceptHandler:
                if n.name:
                    self._local(n.name).persistent = True
            else:  # Return, Yield, YieldFrom
                if t is ast.Return:
                    self.returns.append(n)
                if n.value is not None:
                    self._escape(n.value)
        for name in declared:
            self.locals.pop(name, None)

    def _local(self, name: str) -> LocalInfo:
        info = self.locals.get(name)
        if info is None:
            info = self.locals[name] = LocalInfo()
        return info

    def _bind(self, target: ast.expr, value, params: Set[str]) -> None:
        t = type(target)
        if t is ast.Starred:
            target = target.value
            t = type(target)
        if t is ast.Tuple or t is ast.List:
            for e in target.elts:
                self._bind(e, None, params)
            return
        if t is ast.Attribute or t is ast.Subscript:
            if value is not None and type(value) is not ast.AugAssign:
                self._escape(value)
            return
        if t is not ast.Name or target.id in params:
            return
        info = self._local(target.id)
        if type(value) is ast.AugAssign:
            return
        info.origins.append(value)
        if value is None:
            info.persistent = True
            return
        # For a call, whether it makes a tensor does not depend on `info.heavy`: asked once.
        tensor: Optional[bool] = None
        if self.f.heavy_name(target.id):
            info.heavy = True
        else:
            tensor = self.tensor(value)
            if tensor:
                info.heavy = True
        if type(value) in _PLAIN_VALUES:
            return
        if type(value) is ast.Call:
            if tensor if tensor is not None else self.tensor(value):
                return
            name = dotted(value.func)
            qualified = self.f.qualify(name) if name else None
            if qualified:
                info.ctors.add(qualified)
                return
        info.persistent = True

    def _bind_managed(self, target: ast.expr, manager: ast.expr, params: Set[str]) -> None:
        """`with manager as target`: a manager a call made (`open(...)`, a temporary file) is
        closed when the block ends, so the name does not keep it past the function; another
        (`with self.lock as lock`) is bound as `target = manager` (__enter__ mostly returns it)."""
        if type(manager) is ast.Call and type(target) is ast.Name and target.id not in params:
            self._local(target.id).origins.append(manager)
            return
        self._bind(target, manager, params)

    def _escape(self, value: Optional[ast.expr]) -> None:
        """The names whose objects `value` hands on (not those it only reads from)."""
        stack = [value]  # no recursion: `a if c else b if d else ...` nests without bound
        while stack:
            value = stack.pop()
            if isinstance(value, ast.Name):
                self.escapes.add(value.id)
            elif isinstance(value, (ast.Tuple, ast.List, ast.Set)):
                stack.extend(value.elts)
            elif isinstance(value, ast.Dict):
                stack.extend(value.values)
            elif isinstance(value, (ast.Starred, ast.NamedExpr)):
                stack.append(value.value)
            elif isinstance(value, ast.IfExp):
                stack.extend((value.body, value.orelse))
            elif isinstance(value, ast.BoolOp):
                stack.extend(value.values)
            elif isinstance(value, ast.Call):
                stack.extend(value.args)
                stack.extend(k.value for k in value.keywords)

    def tensor(self, e: ast.expr) -> bool:
        return tensor_producing(e, self.f.qualify, self.heavy_expr)

    def heavy_expr(self, e: ast.expr) -> bool:
        if isinstance(e, ast.Name):
            info = self.locals.get(e.id)
            return self.f.heavy_name(e.id) or (info is not None and info.heavy)
        if isinstance(e, ast.Attribute):
            return self.f.heavy_name(e.attr)
        return False
