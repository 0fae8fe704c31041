"""One file: its imports, classes and functions, scanned function by function into raw.FileFacts."""

from __future__ import annotations

import ast
import itertools
import operator
import os
from typing import Dict, List, Optional, Set

from .function_scan import FunctionScan
from .handles import PY_STORE_METHODS
from .heavy import HeavyNames, dotted
from .raw import ClassRaw, FileFacts, Loc

_CONSTRUCTORS = frozenset({"__init__", "__new__", "__post_init__", "setUp", "setUpClass"})
# The configured release methods that are C++ idioms: in Python `reset()`, `erase()` and the
# others are ordinary methods of their classes (a C++ smart pointer's `reset()` empties it; a
# Python object's may rebuild its state, or be a library's).
_CPP_RELEASE_METHODS = frozenset({"reset", "pop_back", "pop_front", "pop", "erase"})


class Settings:
    """The configuration a file scan needs (picklable for worker processes)."""

    def __init__(self, config: dict):
        self.heavy_name = HeavyNames(config.get("python_heavy_name_patterns", []))
        self.class_patterns = HeavyNames(config.get("heavy_type_patterns", []))
        self.heavy_types = set(config.get("heavy_types", []))
        self.light_types = set(config.get("light_types", []))
        self.release_methods = set(config.get("release_methods", [])) - _CPP_RELEASE_METHODS
        self.store_methods = set(config.get("store_methods", [])) | set(PY_STORE_METHODS)


def _is_package(directory: str) -> bool:
    return os.path.isfile(os.path.join(directory, "__init__.py")) or \
        os.path.isfile(os.path.join(directory, "__init__.pyi"))


def module_name(path: str, packages: Optional[Dict[str, bool]] = None) -> str:
    """The dotted module of `path`: its directories up to the first that is no package.
    `packages` keeps the answers for the directories of a run's files (asked once each, not once
    per file below them)."""
    directory, base = os.path.split(os.path.abspath(path))
    stem = base.rsplit(".", 1)[0]
    parts = [] if stem == "__init__" else [stem]
    known = {} if packages is None else packages
    while True:
        is_package = known.get(directory)
        if is_package is None:
            is_package = known[directory] = _is_package(directory)
        if not is_package:
            break
        directory, name = os.path.split(directory)
        if not name:
            break
        parts.append(name)
    return ".".join(reversed(parts)) or stem


class FileScan:
    def __init__(self, path: str, source: bytes, module: str, settings: Settings):
        self.file = path
        self.module = module
        self.is_package = path.endswith("__init__.py") or path.endswith("__init__.pyi")
        self.source = source
        # Where each line starts: 0, then one past each newline (iterators of C functions, no
        # Python step per line).
        lengths = map(len, source.split(b"\n")[:-1])
        self.line_starts = list(itertools.accumulate(
            map(operator.add, lengths, itertools.repeat(1)), initial=0))
        self.heavy_name = settings.heavy_name
        self.release_methods = settings.release_methods
        self.store_methods = settings.store_methods
        self.aliases: Dict[str, str] = {}
        self.stars: List[str] = []
        self.defined: Dict[str, str] = {}  # module-level classes and functions -> qualified
        self.globals: Set[str] = set()
        self.non_objects: Set[str] = set()
        self.classes: List[ClassRaw] = []
        self.functions = []
        self.events = []
        self.sites = []
        self.derefs = []
        self.edges = []

    # -- locations ------------------------------------------------------------------------------

    def loc(self, node) -> Loc:
        return self.loc_at(node.lineno, node.col_offset)

    def loc_at(self, line: int, col: int) -> Loc:
        start = self.line_starts[line - 1] if 0 < line <= len(self.line_starts) else 0
        return (line, col + 1, start + col)

    def line_text(self, line: int) -> bytes:
        if not 0 < line <= len(self.line_starts):
            return b""
        start = self.line_starts[line - 1]
        end = self.line_starts[line] - 1 if line < len(self.line_starts) else len(self.source)
        return self.source[start:end].rstrip(b"\r")

    # -- names ----------------------------------------------------------------------------------

    def qualify(self, name: Optional[str]) -> Optional[str]:
        if not name:
            return None
        first, _, rest = name.partition(".")
        base = self.aliases.get(first) or self.defined.get(first)
        if base is None:
            return None
        return base + "." + rest if rest else base

    def _absolute(self, module: Optional[str], level: int) -> str:
        if level == 0:
            return module or ""
        package = self.module if self.is_package else self.module.rpartition(".")[0]
        parts = package.split(".") if package else []
        if level > 1:
            parts = parts[:len(parts) - (level - 1)]
        if module:
            parts.append(module)
        return ".".join(p for p in parts if p)

    def _module_names(self, body: List[ast.stmt]) -> None:
        for s in _module_level(body):
            if isinstance(s, ast.Import):
                for a in s.names:
                    if a.asname:
                        self.aliases[a.asname] = a.name
                    else:
                        top = a.name.split(".")[0]
                        self.aliases[top] = top
                    self.non_objects.add(a.asname or a.name.split(".")[0])
            elif isinstance(s, ast.ImportFrom):
                source = self._absolute(s.module, s.level)
                for a in s.names:
                    if a.name == "*":
                        self.stars.append(source)
                        continue
                    self.aliases[a.asname or a.name] = source + "." + a.name if source else a.name
                    self.non_objects.add(a.asname or a.name)
            elif isinstance(s, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
                self.defined[s.name] = self.module + "." + s.name
                self.non_objects.add(s.name)
            elif isinstance(s, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
                targets = s.targets if isinstance(s, ast.Assign) else [s.target]
                for t in targets:
                    for n in ast.walk(t):
                        if isinstance(n, ast.Name):
                            self.globals.add(n.id)
        self.non_objects -= self.globals

    # -- scanning -------------------------------------------------------------------------------

    def run(self, tree: ast.Module) -> FileFacts:
        self._module_names(tree.body)
        for s in _module_level(tree.body):
            self._definition(s, "", None)
        return FileFacts(self.file, self.module, self.aliases, self.stars, self.classes,
                         self.functions, self.events, self.sites, self.derefs, self.edges)

    def _definition(self, s: ast.stmt, prefix: str, cls: Optional[str]) -> None:
        if isinstance(s, ast.ClassDef):
            self._class(s, prefix)
        elif isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)):
            qualname = prefix + s.name
            if cls is None:
                kind = "function"
            elif s.name in _CONSTRUCTORS:
                kind = "constructor"
            elif s.name == "__del__":
                kind = "destructor"
            else:
                kind = "method"
            scan = FunctionScan(self, s, qualname, cls, kind)
            scan.run()
            for n in scan.nested:
                self._definition(n, qualname + ".<locals>.", None)

    def _class(self, s: ast.ClassDef, prefix: str) -> None:
        qualname = prefix + s.name
        qname = self.module + "." + qualname
        bases = []
        for b in s.bases:
            name = dotted(b)
            if name:
                bases.append(self.qualify(name) or name)
        methods: Dict[str, str] = {}
        for item in _module_level(s.body):
            if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
                methods[item.name] = qname + "." + item.name
        self.classes.append(ClassRaw(qname, s.name, bases, methods, self.loc(s)))
        for item in _module_level(s.body):
            if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                self._definition(item, qualname + ".", qname)


def _module_level(body: List[ast.stmt]):
    """The statements of a module or class body, looking into if/try/with blocks at that level."""
    stack = list(reversed(body))
    while stack:
        s = stack.pop()
        if isinstance(s, (ast.If, ast.Try, getattr(ast, "TryStar", ast.Try), ast.With)):
            inner = list(s.body) + list(getattr(s, "orelse", []))
            for h in getattr(s, "handlers", []):
                inner.extend(h.body)
            inner.extend(getattr(s, "finalbody", []))
            stack.extend(reversed(inner))
            continue
        yield s


def scan_source(path: str, source: bytes, module: str, settings: Settings) -> FileFacts:
    tree = ast.parse(source, filename=path)
    return FileScan(path, source, module, settings).run(tree)
