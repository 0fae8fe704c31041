#!/usr/bin/env python3
"""Writes the pickle fixtures of tests/common/pickle_test.cpp with Python's own pickle.

Run from anywhere: python3 testdata/pickle/make_fixtures.py. Nothing here is ever loaded: the
refused fixtures name os.system through __reduce__, which pickling records and never calls.
"""
import os
import pickle
from pathlib import Path

HERE = Path(__file__).resolve().parent


def plain():
    """Every plain type, the encodings of each (ints of 1 to 9 bytes, short and long str) and a
    list referenced twice."""
    shared = [1, 2, 3]
    return {
        "none": None,
        "true": True,
        "false": False,
        "ints": [0, 1, 255, 256, 65535, 65536, -1, -2**31, 2**31 - 1, 2**31, 2**63 - 1, -2**63],
        "floats": [0.0, -0.0, 1.5, -2.25, 1e300, 5e-324, float("inf"), float("nan")],
        "strs": ["", "a", "ünïcödé", "😀", "x" * 300, "line\nbreak\\u0041", "\ud800"],
        "tuples": [(), (1,), (1, 2), (1, 2, 3), (1, 2, 3, 4, 5)],
        "nested": {"a": {"b": {"c": [[[]]]}}},
        "int_keys": {0: "zero", 7: "seven", -1: "minus one"},
        "shared": [shared, shared],
    }


def snapshot():
    """Shaped like torch.cuda.memory._snapshot(): dicts of lists of dicts, the same frame lists
    and file names many times (the fields are made up; their meaning is not tested here)."""
    frames = [
        [{"filename": "/venv/lib/python3.12/site-packages/torch/nn/modules/linear.py",
          "line": 125, "name": "forward"},
         {"filename": "train.py", "line": 40 + i, "name": "step"}]
        for i in range(3)
    ]
    blocks = [{"address": 0x7F0000000000 + 512 * i, "size": 512, "requested_size": 500,
               "state": "active_allocated", "frames": frames[i % 3]} for i in range(20)]
    segments = [{"device": 0, "address": 0x7F0000000000, "total_size": 2097152,
                 "allocated_size": 10240, "active_size": 10240, "stream": 0,
                 "segment_type": "small", "blocks": blocks}]
    trace = [{"action": "alloc", "addr": b["address"], "size": b["size"], "stream": 0,
              "time_us": 1000 + i, "frames": b["frames"]} for i, b in enumerate(blocks)]
    return {"segments": segments, "device_traces": [trace, []],
            "allocator_settings": {"expandable_segments": False}}


def batches():
    """Lists and dicts past 1000 items: the pickler writes them in batches of 1000."""
    return {"list": list(range(2500)), "dict": {f"k{i}": i for i in range(1001)}}


class Call:
    """Pickles as a call of os.system (what a malicious pickle does); never loaded here."""

    def __reduce__(self):
        return (os.system, ("true",))


def recursive_list():
    items = []
    items.append(items)
    return items


def recursive_dict():
    d = {}
    d["self"] = d
    return d


def mutual_lists():
    a = []
    a.append([a])
    return a


def write(name, data):
    (HERE / name).write_bytes(data)


def main():
    for protocol in range(6):
        write(f"plain.p{protocol}.pickle", pickle.dumps(plain(), protocol=protocol))
    write("extras.p3.pickle", pickle.dumps({"bytes": b"\x00\xff", "short": b"ab"}, protocol=3))
    write("extras.p4.pickle", pickle.dumps(
        {"bytes": b"\x00\xff", "set": {1, 2}, "frozenset": frozenset({3})}, protocol=4))
    write("extras.p5.pickle", pickle.dumps({"bytearray": bytearray(b"ab")}, protocol=5))
    write("snapshot.p4.pickle", pickle.dumps(snapshot(), protocol=4))
    write("batches.p4.pickle", pickle.dumps(batches(), protocol=4))
    write("refused_global.p0.pickle", pickle.dumps(Call(), protocol=0))
    write("refused_stack_global.p4.pickle", pickle.dumps(Call(), protocol=4))
    write("refused_recursive_list.p4.pickle", pickle.dumps(recursive_list(), protocol=4))
    write("refused_recursive_dict.p2.pickle", pickle.dumps(recursive_dict(), protocol=2))
    write("refused_mutual_lists.p4.pickle", pickle.dumps(mutual_lists(), protocol=4))
    write("refused_int65.p2.pickle", pickle.dumps([2**64], protocol=2))
    write("refused_int_long4.p4.pickle", pickle.dumps(-(2**2400), protocol=4))
    write("refused_int_text.p0.pickle", pickle.dumps(2**63, protocol=0))


if __name__ == "__main__":
    main()
