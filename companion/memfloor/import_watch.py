"""Run a callback once a module has been imported, without importing it ourselves."""

import importlib.abc
import importlib.machinery
import importlib.util
import sys
import types
from typing import Callable, Optional, Sequence

Callback = Callable[[types.ModuleType], None]


class _CallingLoader(importlib.abc.Loader):
    """The module's own loader, then the callback; everything else is the loader's."""

    def __init__(self, loader: importlib.abc.Loader, done: Callable[[types.ModuleType], None]):
        self._loader = loader
        self._done = done

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> Optional[types.ModuleType]:
        return self._loader.create_module(spec)

    def exec_module(self, module: types.ModuleType) -> None:
        self._loader.exec_module(module)
        self._done(module)

    def __getattr__(self, name: str):  # get_resource_reader, is_package, get_source...
        return getattr(self._loader, name)


class _Watcher(importlib.abc.MetaPathFinder):
    """Finds nothing itself: asks the other finders, and wraps the loader of the watched name."""

    def __init__(self, name: str, callback: Callback):
        self._name = name
        self._callback = callback
        self._busy = False

    def find_spec(
        self,
        fullname: str,
        path: Optional[Sequence[str]],
        target: Optional[types.ModuleType] = None,
    ) -> Optional[importlib.machinery.ModuleSpec]:
        if fullname != self._name or self._busy:
            return None
        self._busy = True
        try:
            spec = importlib.util.find_spec(fullname)
        finally:
            self._busy = False
        if spec is None or spec.loader is None:
            return None
        spec.loader = _CallingLoader(spec.loader, self._imported)
        return spec

    def _imported(self, module: types.ModuleType) -> None:
        remove(self)
        self._callback(module)


def remove(watcher: importlib.abc.MetaPathFinder) -> None:
    try:
        sys.meta_path.remove(watcher)
    except ValueError:
        pass


def when_imported(name: str, callback: Callback) -> Optional[importlib.abc.MetaPathFinder]:
    """Calls callback(module) once `name` (a module, or a submodule of an imported package) is
    imported: now if it already is, else right after its import completes. Returns the watcher
    (for remove), None if called now."""
    module = sys.modules.get(name)
    if module is not None:
        callback(module)
        return None
    watcher = _Watcher(name, callback)
    sys.meta_path.insert(0, watcher)
    return watcher
