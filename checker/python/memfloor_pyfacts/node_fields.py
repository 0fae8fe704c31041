"""Each syntax node type's fields that can hold nodes with children, looked up once per type:
the walks of a function body go through this table rather than `ast.iter_child_nodes`, which
asks every field of every node (contexts and operators included) each time."""

from __future__ import annotations

import ast
from typing import Dict, List, Tuple

# Fields that hold no node with children: names, flags, contexts, operators, aliases.
_LEAF_FIELDS = frozenset({
    "ctx", "op", "ops", "id", "attr", "arg", "asname", "name", "names", "conversion", "is_async",
    "kind", "level", "lineno", "module", "n", "s", "simple", "tag", "type_comment", "kwd_attrs",
    "rest", "type_ignores"})


def _child_fields(cls: type) -> Tuple[str, ...]:
    if cls is ast.Constant:
        return ()  # its value is a Python object, never a node
    return tuple(f for f in cls._fields if f not in _LEAF_FIELDS)


CHILD_FIELDS: Dict[type, Tuple[str, ...]] = {
    cls: _child_fields(cls) for cls in vars(ast).values()
    if isinstance(cls, type) and issubclass(cls, ast.AST)}


def child_nodes(node: ast.AST) -> List[ast.AST]:
    """What `ast.iter_child_nodes(node)` yields, in its order, less the leaves of leaf fields
    (a name's context, an operator, an import's aliases)."""
    out: List[ast.AST] = []
    AST = ast.AST
    for name in CHILD_FIELDS.get(type(node), ()):
        v = getattr(node, name)
        if type(v) is list:
            out.extend([x for x in v if isinstance(x, AST)])
        elif isinstance(v, AST):
            out.append(v)
    return out
