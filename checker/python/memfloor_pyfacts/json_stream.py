"""JSON values written as they are made: an object or an array whose members come from an iterator,
so that the facts of a large program are never held as one document (nor as one string)."""

from __future__ import annotations

import json
from typing import Any, Iterable, Iterator, List, TextIO, Tuple

# The C encoder, compact, ASCII only (json.dumps with these separators writes the same bytes).
_ENCODER = json.JSONEncoder(separators=(",", ":"))
_BATCH = 512  # members encoded by one call of the C encoder


class Members:
    """An object whose (key, value) pairs an iterator yields, once."""

    def __init__(self, pairs: Iterable[Tuple[str, Any]]):
        self.pairs = pairs


class Items:
    """An array whose elements an iterator yields, once; the elements are plain values."""

    def __init__(self, elements: Iterable[Any]):
        self.elements = elements


def _streamed(value: Any) -> bool:
    return isinstance(value, (Members, Items))


def value(v: Any) -> Any:
    """`v` as plain values (dicts and lists), its streams drained."""
    if isinstance(v, Members):
        return {k: value(m) for k, m in v.pairs}
    if isinstance(v, Items):
        return [value(e) for e in v.elements]
    return v


def _batches(iterator: Iterator[Any]) -> Iterator[List[Any]]:
    batch: List[Any] = []
    for x in iterator:
        batch.append(x)
        if len(batch) == _BATCH:
            yield batch
            batch = []
    if batch:
        yield batch


def write(out: TextIO, v: Any) -> None:
    """Writes `v` as compact JSON, the bytes json.dump(value(v), out, separators=(",", ":"))
    writes. Members and elements that are not streams are encoded a batch at a time."""
    if isinstance(v, Members):
        out.write("{")
        first = True
        pending: List[Tuple[str, Any]] = []

        def flush() -> None:
            nonlocal first
            if pending:
                out.write(("" if first else ",") + _ENCODER.encode(dict(pending))[1:-1])
                first = False
                pending.clear()

        for k, m in v.pairs:
            if _streamed(m):
                flush()
                out.write(("" if first else ",") + _ENCODER.encode(k) + ":")
                first = False
                write(out, m)
            else:
                pending.append((k, m))
                if len(pending) == _BATCH:
                    flush()
        flush()
        out.write("}")
    elif isinstance(v, Items):
        out.write("[")
        first = True
        for batch in _batches(iter(v.elements)):
            out.write(("" if first else ",") + _ENCODER.encode(batch)[1:-1])
            first = False
        out.write("]")
    else:
        out.write(_ENCODER.encode(v))
