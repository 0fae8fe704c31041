#!/usr/bin/env python3
"""Writes the hostile snapshots of hostile/ and hostile/expected.json.

Each is a small PyTorch memory snapshot (a pickle, as torch.cuda.memory._dump_snapshot() writes
one, or JSON) shaped to make a reader blow up: values the pickle shares (a reference costs a few
bytes, a copy of what it refers to is as large as the value), numbers past what their field
holds, texts and stacks past any program's, entries PyTorch writes that carry no allocation.
expected.json maps each file to what reading it must say: a part of the error message, or ""
for a file that is read (and analysed) as it is.

    python3 testdata/snapshots/make_hostile_snapshots.py testdata/snapshots/hostile
"""
import json
import os
import pickle
import sys

FRAME = {"filename": "train.py", "name": "step", "line": 7}


def entry(action, addr, size, time_us, frames=None):
    return {"action": action, "addr": addr, "size": size, "stream": 0, "time_us": time_us,
            "frames": frames if frames is not None else [FRAME]}


def block(addr, size):
    return {"address": addr, "size": size, "requested_size": size, "state": "active_allocated",
            "frames": [FRAME]}


def segment(addr, blocks, device=0):
    return {"device": device, "address": addr, "total_size": sum(b["size"] for b in blocks),
            "allocated_size": 0, "active_size": 0, "requested_size": 0, "stream": 0,
            "segment_type": "small", "blocks": blocks, "frames": [FRAME]}


def history(*entries):
    return [list(entries)]


def one_alloc():
    return history(entry("segment_alloc", 0x7f0000000000, 2 << 20, 1000),
                   entry("alloc", 0x7f0000000000, 512, 1001))


def cases():
    """(file name, snapshot, what reading it must say)."""
    wide = segment(0x7f0000000000, [block(0x7f0000000000 + 512 * i, 512) for i in range(1000)])
    yield ("shared_segment.pickle", {"segments": [wide] * 64, "device_traces": [[]]},
           "segments[1]: the same value as an earlier one")
    entries = one_alloc()[0] * 50
    yield ("shared_entries.pickle", {"segments": [], "device_traces": [entries]},
           "device_traces[0][2]: the same value as an earlier one")
    shared_list = one_alloc()[0]
    yield ("shared_device_list.pickle", {"segments": [], "device_traces": [shared_list] * 16},
           "device_traces[1]: the same value as an earlier one")
    yield ("device_minus_one.json",
           {"segments": [segment(0x7f0000000000, [block(0x7f0000000000, 512)], device=-1)],
            "device_traces": []},
           "segments[0]: 'device' is -1, outside 0..1023")
    yield ("device_2_32_plus_1.pickle",
           {"segments": [segment(0x7f0000000000, [block(0x7f0000000000, 512)], device=2**32 + 1)],
            "device_traces": []},
           "segments[0]: 'device' is 4294967297, outside 0..1023")
    yield ("many_devices.pickle", {"segments": [], "device_traces": [[] for _ in range(2000)]},
           "device_traces: 2000 devices, more than the 1024 a snapshot may name")
    yield ("line_2_40.pickle",
           {"segments": [], "device_traces": history(
               entry("alloc", 0x7f0000000000, 512, 1000,
                     [{"filename": "train.py", "name": "step", "line": 2**40}]))},
           "'line' is 1099511627776, outside 0..4294967295")
    yield ("time_us_wraps.pickle",
           {"segments": [], "device_traces": history(entry("alloc", 0x7f0000000000, 512, 2**62))},
           "device_traces[0][0]: 'time_us' is 4611686018427387904, outside 0..")
    yield ("long_name.pickle",
           {"segments": [], "device_traces": history(
               entry("alloc", 0x7f0000000000, 512, 1000,
                     [{"filename": "train.py", "name": "x" * 66000, "line": 1}]))},
           "'name' is 66000 bytes, more than the 65536 a snapshot's text may be")
    yield ("long_user_metadata.pickle",
           {"segments": [], "device_traces": history(
               dict(entry("alloc", 0x7f0000000000, 512, 1000), user_metadata="m" * 66000))},
           "'user_metadata' is 66000 bytes")
    yield ("deep_stack.pickle",
           {"segments": [], "device_traces": history(
               entry("alloc", 0x7f0000000000, 512, 1000, [FRAME] * 5000))},
           "a stack of 5000 frames, more than the 4096")
    # PyTorch records a "snapshot" entry at each dump after the first, with the dump's time; one
    # without a time (another writer's) must not start the trace at time 0.
    yield ("snapshot_entries.pickle",
           {"segments": [], "device_traces": history(
               {"action": "snapshot", "addr": 0, "size": 0, "stream": 0, "frames": []},
               entry("segment_alloc", 0x7f0000000000, 2 << 20, 1_700_000_000_000_000),
               entry("alloc", 0x7f0000000000, 512, 1_700_000_000_000_100),
               {"action": "snapshot", "addr": 0, "size": 0, "stream": 0, "frames": [],
                "time_us": 1_700_000_000_000_200})},
           "")
    yield ("duplicate_keys.pickle", duplicate_keys(1000, 3),
           "device_traces[0][1]: the same value as an earlier one")
    # What json.dump writes for a file name Python decoded with surrogateescape.
    yield ("lone_surrogate.json",
           {"segments": [], "device_traces": history(
               entry("alloc", 0x7f0000000000, 512, 1000,
                     [{"filename": "caf\udce9.py", "name": "step", "line": 1}]))},
           "")


def duplicate_keys(repeats, refs):
    """A pickle no Python pickler writes: one entry dict whose keys are each set `repeats` times
    (the last wins, as pickle.loads does it), shared by `refs` entries of device 0's trace."""
    b = bytearray(b"\x80\x04")
    b += b"}("  # EMPTY_DICT, MARK
    for key, value in (("action", "alloc"), ("addr", 4096), ("size", 512), ("time_us", 1000)):
        for _ in range(repeats):
            k = key.encode()
            b += b"\x8c" + bytes([len(k)]) + k  # SHORT_BINUNICODE
            if isinstance(value, str):
                v = value.encode()
                b += b"\x8c" + bytes([len(v)]) + v
            else:
                b += b"J" + value.to_bytes(4, "little")  # BININT
    b += b"u\x94"  # SETITEMS, MEMOIZE (memo 0)
    b += b"}(\x8c\x08segments]\x8c\x0ddevice_traces]](" + b"h\x00" * refs + b"eau."
    return bytes(b)


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    expected = {}
    for name, snapshot, says in cases():
        with open(os.path.join(out, name), "wb") as f:
            if isinstance(snapshot, bytes):
                f.write(snapshot)
            elif name.endswith(".json"):
                f.write(json.dumps(snapshot).encode("ascii"))
            else:
                pickle.dump(snapshot, f, protocol=4)
        expected[name] = says
    with open(os.path.join(out, "expected.json"), "w") as f:
        json.dump(expected, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
