"""Which files a run reads: the files named (.py, or .pyi stubs when named) and the .py files under
the directories named (recursive, without following directory links, hidden directories and
__pycache__ skipped, excludes applied), each with its dotted module name.

What a walk finds that is not a regular file (a dangling link such as Emacs's lock file `.#x.py`
beside a buffer being edited, a pipe, a socket) is skipped without a word; named on the command
line, it is an error naming it. A regular file that cannot be read is an error either way."""

from __future__ import annotations

import errno
import fnmatch
import os
import stat
from typing import Dict, List, NamedTuple, Optional, Set, Tuple

from .file_scan import module_name

MAX_FILE_BYTES = 64 << 20  # a source file larger than this is refused, not read
# Why opening a file found by a walk fails when there is no file to read there: a dangling link
# (ENOENT: also a file removed since the walk), a loop of links, a socket.
_NOT_A_FILE = frozenset({errno.ENOENT, errno.ELOOP, errno.ENXIO})


class SourceFile(NamedTuple):
    path: str
    module: str
    walked: bool = False  # found by a directory walk, not named on the command line


def _excluded(path: str, relative: str, excludes: List[str]) -> bool:
    name = os.path.basename(path)
    return any(fnmatch.fnmatch(relative, g) or fnmatch.fnmatch(name, g) or fnmatch.fnmatch(path, g)
               for g in excludes)


def _missing(path: str) -> str:
    """Why a path named on the command line is not there."""
    try:
        return f"a symbolic link to '{os.readlink(path)}', which does not exist"
    except OSError:
        return "no such file or directory"


def discover(paths: List[str], excludes: List[str]) -> Tuple[List[SourceFile], List[str]]:
    found: List[str] = []
    named: Set[str] = set()
    errors: List[str] = []
    for given in paths:
        path = os.path.abspath(given)
        if os.path.isdir(path):
            for directory, dirs, files in os.walk(path):
                rel_dir = os.path.relpath(directory, path)
                dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d != "__pycache__"
                                 and not _excluded(os.path.join(directory, d),
                                                   os.path.normpath(os.path.join(rel_dir, d)), excludes))
                for name in sorted(files):
                    full = os.path.join(directory, name)
                    if name.endswith(".py") and not _excluded(
                            full, os.path.normpath(os.path.join(rel_dir, name)), excludes):
                        found.append(full)
        elif os.path.exists(path):
            found.append(path)
            named.add(os.path.normpath(path))
        else:
            errors.append(f"{given}: {_missing(path)}")
    unique = sorted(set(os.path.normpath(p) for p in found))
    packages: Dict[str, bool] = {}
    return [SourceFile(p, module_name(p, packages), p not in named) for p in unique], errors


def read_source(path: str, walked: bool = False) -> Tuple[Optional[bytes], Optional[str]]:
    """The bytes of the file, or why there are none; (None, None) for a file found by a walk that
    is not a regular file (skipped: see above). Whether it is one is asked of the open file, not
    before: a link can be left dangling between the walk and the read."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError as e:
        if walked and e.errno in _NOT_A_FILE:
            return None, None
        return None, f"{path}: cannot open: {e.strerror}"
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            return None, (None if walked else f"{path}: not a regular file")
        if info.st_size > MAX_FILE_BYTES:
            return None, f"{path}: {info.st_size} bytes is larger than the {MAX_FILE_BYTES >> 20} MiB limit"
        # One read for the size fstat gave (and the byte that tells the end), more only for a
        # file that grew meanwhile.
        chunks = [os.read(fd, info.st_size + 1)]
        while chunks[-1]:
            chunks.append(os.read(fd, 1 << 20))
        return b"".join(chunks), None
    except OSError as e:
        return None, f"{path}: cannot read: {e.strerror}"
    finally:
        os.close(fd)
