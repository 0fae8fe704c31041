"""memfloor-check's Python front end: Python sources in, one memfloor.pyfacts/1 envelope out.

    python3 -I -S -c "...; from memfloor_pyfacts.main import main; ..." DIR --config-json JSON
        [--jobs N] [--exclude GLOB]... -- PATH...

stdout: {"schema": "memfloor.pyfacts/1", "errors": [...], "files": N, "bytes": N, "facts":
<memfloor.facts/1>}, written as the facts are made (json_stream). A file that cannot be read or
parsed is named in "errors" and skipped (what a walk finds that is not a regular file is skipped
without a word: sources.py); the exit status is 0 whenever the envelope was written.
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import json
import sys
from typing import Iterator, List, Optional, Tuple

from . import json_stream
from .file_scan import Settings, scan_source
from .program import facts_document
from .raw import FileFacts
from .sources import SourceFile, discover, read_source

ENVELOPE_SCHEMA = "memfloor.pyfacts/1"
_MIN_PYTHON = (3, 8)

_settings: Optional[Settings] = None  # a worker process's copy


def _init_worker(config: dict) -> None:
    global _settings
    _settings = Settings(config)


@contextlib.contextmanager
def collected_once() -> Iterator[None]:
    """The cycle collector held off while a file is scanned (or the facts written), then run
    once on what is left. Left on, it runs every 700 allocations and walks the young objects each time: a
    file's syntax tree, hundreds of thousands of objects that reference counting frees anyway
    (on torch/, a third of the front end's time, ast.parse's share nearly doubled). The
    scan's own cycles (control-flow graphs with loops) go at the end of the file."""
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()
        gc.collect(0)


def scan_file(source: SourceFile) -> Tuple[Optional[FileFacts], Optional[str], int]:
    """One file's raw facts, or the reason it has none."""
    data, error = read_source(source.path, source.walked)
    if data is None:
        return None, error, 0  # error None: found by a walk and not a file, skipped
    with collected_once():
        return _scan_data(source, data)


def _scan_data(source: SourceFile, data: bytes) -> Tuple[Optional[FileFacts], Optional[str], int]:
    try:
        return scan_source(source.path, data, source.module, _settings), None, len(data)
    except SyntaxError as e:
        where = f"{source.path}:{e.lineno}" if e.lineno else source.path
        return None, f"{where}: cannot parse: {e.msg} {parsed_by()}", len(data)
    except (ValueError, RecursionError, MemoryError) as e:
        return None, f"{source.path}: cannot parse: {type(e).__name__}: {e}", len(data)


def parsed_by() -> str:
    """Which Python parsed: `ast` reads the syntax of the interpreter it runs on and no newer
    (`type X = int` is a syntax error before 3.12), so a file written for a newer Python reads as
    one that does not parse."""
    version = f"{sys.version_info[0]}.{sys.version_info[1]}"
    where = sys.executable or "a path it does not know"
    return (f"(parsed by Python {version} at {where}; code for a newer Python needs --python "
            "naming that interpreter)")


def envelope(paths: List[str], config: dict, jobs: int,
             excludes: List[str]) -> json_stream.Members:
    """The envelope, its facts made as they are written."""
    sources, errors = discover(paths, excludes)
    files: List[FileFacts] = []
    total = 0
    if jobs > 1 and len(sources) > 1:
        import multiprocessing  # 12 ms to import: only where it runs (memfloor-check -j N)
        context = multiprocessing.get_context("fork")
        with context.Pool(jobs, _init_worker, (config,)) as pool:
            results = pool.map(scan_file, sources, chunksize=max(1, len(sources) // (jobs * 8)))
    else:
        _init_worker(config)
        results = [scan_file(s) for s in sources]
    for facts, error, size in results:
        total += size
        if facts is not None:
            files.append(facts)
        if error is not None:
            errors.append(error)
    _init_worker(config)
    return json_stream.Members([("schema", ENVELOPE_SCHEMA), ("errors", errors),
                                ("files", len(files)), ("bytes", total),
                                ("facts", facts_document(files, _settings))])


def collect(paths: List[str], config: dict, jobs: int, excludes: List[str]) -> dict:
    """The envelope as one value."""
    return json_stream.value(envelope(paths, config, jobs, excludes))


def main(argv: List[str]) -> int:
    if sys.version_info < _MIN_PYTHON:
        print("memfloor-check: the Python front end needs Python 3.8 or newer, not "
              f"{sys.version.split()[0]}", file=sys.stderr)
        return 2
    parser = argparse.ArgumentParser(prog="memfloor_pyfacts")
    parser.add_argument("--config-json", required=True)
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--exclude", action="append", default=[])
    parser.add_argument("paths", nargs="+")
    args = parser.parse_args(argv)
    try:
        config = json.loads(args.config_json)
    except ValueError as e:
        print(f"memfloor-check: --config-json: {e}", file=sys.stderr)
        return 2
    if not isinstance(config, dict):
        print("memfloor-check: --config-json: not an object", file=sys.stderr)
        return 2
    document = envelope(args.paths, config, max(1, args.jobs),
                        args.exclude + list(config.get("python_exclude", [])))
    with collected_once():  # the records written are freed as they go
        json_stream.write(sys.stdout, document)
    sys.stdout.write("\n")
    return 0
