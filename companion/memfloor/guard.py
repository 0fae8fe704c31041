"""The companion's one promise: it never stops, fails or changes the program it runs in.

Every way in from the program (the import watch's callback, the hooks registered into PyTorch,
atexit) goes through `guarded`: an exception there is one line on stderr, and that part of the
companion is off for the rest of the process; the program runs on with its own output and exit
code. The lines themselves never raise either (a closed or missing stderr loses them)."""

import functools
import sys
from typing import Callable, List, Optional, TypeVar

T = TypeVar("T")


def say(text: str) -> None:
    """One line on stderr, `memfloor: ` first; nothing when stderr cannot take it."""
    try:
        print(f"memfloor: {text}", file=sys.stderr)
    except Exception:  # noqa: BLE001 - no stderr (closed, None, a broken pipe): nothing to tell
        pass


def guarded(part: str, function: Callable[..., T],
            default: Optional[T] = None) -> Callable[..., Optional[T]]:
    """function, safe to call from the program: the first exception it raises is said
    (`memfloor: <part> failed: <error>; off in this process`) and from then on the call does
    nothing and returns `default`, as it does for that call."""
    failed: List[BaseException] = []

    @functools.wraps(function)
    def call(*args, **kwargs):
        if failed:
            return default
        try:
            return function(*args, **kwargs)
        except Exception as error:  # noqa: BLE001 - the program must run on
            failed.append(error)
            say(f"{part} failed: {error!r}; off in this process")
            return default

    return call


def attempt(part: str, function: Callable[..., T], *args) -> Optional[T]:
    """function(*args) once, through `guarded`: None when it failed (said)."""
    return guarded(part, function)(*args)
