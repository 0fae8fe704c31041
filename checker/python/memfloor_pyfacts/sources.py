"""Which files a run reads: the files named (.py, or .pyi stubs when named) and the .py files under
the directories named (recursive, without following directory links, hidden directories and
__pycache__ skipped, excludes applied), each with its dotted module name."""

from __future__ import annotations

import fnmatch
import os
import stat
from typing import Dict, List, NamedTuple, Optional, Tuple

from .file_scan import module_name

MAX_FILE_BYTES = 64 << 20  # a source file larger than this is refused, not read


class SourceFile(NamedTuple):
    path: str
    module: str


def _excluded(path: str, relative: str, excludes: List[str]) -> bool:
    name = os.path.basename(path)
    return any(fnmatch.fnmatch(relative, g) or fnmatch.fnmatch(name, g) or fnmatch.fnmatch(path, g)
               for g in excludes)


def discover(paths: List[str], excludes: List[str]) -> Tuple[List[SourceFile], List[str]]:
    found: List[str] = []
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
        else:
            errors.append(f"{given}: no such file or directory")
    unique = sorted(set(os.path.normpath(p) for p in found))
    packages: Dict[str, bool] = {}
    return [SourceFile(p, module_name(p, packages)) for p in unique], errors


def read_source(path: str) -> Tuple[Optional[bytes], Optional[str]]:
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError as e:
        return None, f"{path}: cannot open: {e.strerror}"
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            return None, f"{path}: not a regular file"
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
