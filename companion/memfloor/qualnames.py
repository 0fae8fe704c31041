"""Qualified names for the frames of PyTorch's memory history.

The history names a frame by its code's co_name ("forward"), while the hook, reading frames
itself, names it by co_qualname ("GPT2Attention.forward"). One function must print under one
name, so the history's frames take the qualified name of the code that holds their line: from the
functions and classes of the module loaded from that file, indexed once per file. A file no loaded
module comes from (generated code, `<frozen ...>`), or a name not found there, keeps co_name."""

import sys
import types
from typing import Dict, Iterator, List, Tuple

# (first line, last line, co_name, co_qualname) of each code object of a file.
Entry = Tuple[int, int, str, str]
MAX_DEPTH = 8  # classes and closures nested deeper than this are not looked into


def _functions(member) -> Iterator[types.FunctionType]:
    """The functions a class or module member holds: itself, a static or class method's, a
    property's accessors, and what functools.wraps wrapped. Only plain types are looked into: an
    arbitrary object's attributes can run its code (torch.classes raises for any name, and
    torch.distributed.reduce_op warns)."""
    # type(), not isinstance(): isinstance reads __class__, which an object can compute (and warn).
    if type(member) in (staticmethod, classmethod):
        member = member.__func__
    if type(member) is property:
        candidates = [member.fget, member.fset, member.fdel]
    else:
        candidates = [member]
    for candidate in candidates:
        for _ in range(MAX_DEPTH):
            if type(candidate) is not types.FunctionType:
                break
            yield candidate
            candidate = candidate.__dict__.get("__wrapped__")


def _codes(obj, module: str, depth: int, seen: set) -> Iterator[types.CodeType]:
    """The code objects of a module's or class's functions, nested ones included; classes are
    looked into where `module` defines them."""
    if depth > MAX_DEPTH or id(obj) in seen:
        return
    seen.add(id(obj))
    try:
        members = list(vars(obj).values())
    except TypeError:
        return
    for member in members:
        for function in _functions(member):
            yield from _nested(function.__code__, 0)
        if issubclass(type(member), type) and member.__dict__.get("__module__") == module:
            yield from _codes(member, module, depth + 1, seen)


def _nested(code: types.CodeType, depth: int) -> Iterator[types.CodeType]:
    yield code
    if depth >= MAX_DEPTH:
        return
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            yield from _nested(const, depth + 1)


def _entry(code: types.CodeType) -> Entry:
    lines = [line for _, _, line in code.co_lines() if line] if hasattr(code, "co_lines") else []
    first = min(lines, default=code.co_firstlineno)
    last = max(lines, default=code.co_firstlineno)
    return (min(first, code.co_firstlineno), last, code.co_name,
            getattr(code, "co_qualname", code.co_name))


class QualNames:
    """co_name -> co_qualname for (file, name, line), from the modules loaded so far."""

    def __init__(self, modules: Dict[str, types.ModuleType] = sys.modules) -> None:
        self._modules = modules
        self._files: Dict[str, List[Entry]] = {}

    def qualify(self, file: str, name: str, line: int) -> str:
        entries = self._files.get(file)
        if entries is None:
            entries = self._files[file] = self._index(file)
        best = None
        for first, last, co_name, qualname in entries:
            if co_name == name and first <= line <= last:
                if best is None or last - first < best[0]:
                    best = (last - first, qualname)
        return best[1] if best is not None else name

    def _index(self, file: str) -> List[Entry]:
        entries: List[Entry] = []
        seen: set = set()
        for module in list(self._modules.values()):
            if (not issubclass(type(module), types.ModuleType)
                    or module.__dict__.get("__file__") != file):
                continue
            try:
                for code in _codes(module, module.__dict__.get("__name__", ""), 0, seen):
                    if code.co_filename == file:
                        entries.append(_entry(code))
            except Exception:  # noqa: BLE001: a module that cannot be read names nothing
                continue
        return entries
