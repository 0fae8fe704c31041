"""Where a census starts: the running frames of every thread and the globals of user modules."""

import os
import sys
import sysconfig
import types
from typing import List, Optional, Tuple

from memfloor.census_edges import locals_of

# A root: its name as paths start (`train.py:<module>`, `mypkg.cache`) and the namespace dict.
Root = Tuple[str, dict]

_LIBRARY_MARKS = (os.sep + "site-packages" + os.sep, os.sep + "dist-packages" + os.sep)


def _library_dirs() -> Tuple[str, ...]:
    paths = sysconfig.get_paths()
    dirs = {paths.get(key) for key in ("stdlib", "platstdlib", "purelib", "platlib")}
    return tuple(sorted(os.path.join(d, "") for d in dirs if d))


def is_library_file(filename: Optional[str], library_dirs: Tuple[str, ...]) -> bool:
    """True for the standard library, installed packages (torch among them) and built-ins."""
    if not filename or filename.startswith("<"):
        return True
    return filename.startswith(library_dirs) or any(mark in filename for mark in _LIBRARY_MARKS)


def _frame_name(frame: types.FrameType) -> str:
    code = frame.f_code
    return f"{os.path.basename(code.co_filename)}:{code.co_name}"


def frame_roots(skip_files: Tuple[str, ...], library_dirs: Tuple[str, ...]) -> List[Root]:
    """The locals of every running frame of every thread, outermost first, user code before
    library code; frames of `skip_files` (the census' own) are left out."""
    user: List[Root] = []
    library: List[Root] = []
    for top in list(sys._current_frames().values()):
        stack = []
        frame = top
        while frame is not None:
            stack.append(frame)
            frame = frame.f_back
        for frame in reversed(stack):
            filename = frame.f_code.co_filename
            if filename in skip_files:
                continue
            namespace = locals_of(frame)
            if namespace is None:
                continue
            target = library if is_library_file(filename, library_dirs) else user
            target.append((_frame_name(frame), namespace))
        del stack, frame, top
    return user + library


def module_roots(library_dirs: Tuple[str, ...]) -> List[Root]:
    """The globals of the modules imported from user code (not the standard library, not
    installed packages)."""
    roots: List[Root] = []
    for name, module in list(sys.modules.items()):
        if not issubclass(type(module), types.ModuleType):  # no isinstance: lazy modules
            continue
        namespace = getattr(module, "__dict__", None)
        filename = namespace.get("__file__") if isinstance(namespace, dict) else None
        if isinstance(filename, str) and not is_library_file(filename, library_dirs):
            roots.append((name, namespace))
    return roots


def default_roots(skip_files: Tuple[str, ...]) -> List[Root]:
    library_dirs = _library_dirs()
    return frame_roots(skip_files, library_dirs) + module_roots(library_dirs)
