#!/usr/bin/env python3
"""Peak memory and time of `memfloor analyze` on PyTorch memory snapshots as they grow.

    bench/snapshot_scale.py MEMFLOOR [--sizes 10000,100000,1000000] [--keep DIR]

For each size N it writes snapshots of three shapes (pickled as torch.cuda.memory._dump_snapshot()
writes them) and analyses each once, measuring the child's peak RSS (wait4) and wall time:

  wide-history  N history entries (allocs and frees of 256 live tensors), frames shared
  wide-state    N blocks in N/1000 segments, every block with the same frames
  shared-text   N entries that share one 60 KB user_metadata string and one 4000-frame stack:
                what a pickle's references make cheap to write and costly to copy

It prints, per file: bytes, peak RSS (GNU time), RSS / file, wall seconds, microseconds per KB. It fails
(exit 1) where the peak RSS passes 50 x the file's size + 100 MB, or where the time per byte of the
largest size passes 3x that of the middle one (time not linear in the file), the bounds of
docs/torch-snapshots.md. Refused files (exit 2 from memfloor) count as failures too.
"""
import argparse
import os
import pickle
import subprocess
import sys
import tempfile
import time

FRAMES = [{"filename": f"/opt/venv/lib/python3.12/site-packages/torch/nn/modules/m{i}.py",
           "name": f"forward_{i}", "line": 100 + i} for i in range(24)]


def entry(action, addr, size, t, frames, metadata=None):
    e = {"action": action, "addr": addr, "size": size, "stream": 0, "time_us": t, "frames": frames}
    if metadata is not None:
        e["user_metadata"] = metadata
    return e


def wide_history(n):
    base = 0x7F0000000000
    entries = [entry("segment_alloc", base, 1 << 30, 1, FRAMES)]
    t = 2
    for i in range(n // 2):
        addr = base + (i % 256) * 4096
        entries.append(entry("alloc", addr, 4096, t, FRAMES))
        entries.append(entry("free_completed", addr, 4096, t + 1, FRAMES))
        t += 2
    return {"segments": [], "device_traces": [entries]}


def wide_state(n):
    segments = []
    per = 1000
    for s in range(max(1, n // per)):
        base = 0x7F0000000000 + s * (per * 4096)
        blocks = [{"address": base + b * 4096, "size": 4096, "requested_size": 4096,
                   "state": "active_allocated", "frames": FRAMES} for b in range(per)]
        segments.append({"device": 0, "address": base, "total_size": per * 4096, "stream": 0,
                         "segment_type": "large", "blocks": blocks, "frames": FRAMES})
    return {"segments": segments, "device_traces": [[]]}


def shared_text(n):
    metadata = "module:" + "m" * 60000
    deep = [FRAMES[0]] * 4000
    base = 0x7F0000000000
    entries = [entry("segment_alloc", base, 1 << 30, 1, deep)]
    for i in range(n):
        entries.append(entry("alloc", base + (i % 256) * 4096, 4096, 2 + i, deep, metadata))
        entries.append(entry("free_completed", base + (i % 256) * 4096, 4096, 3 + i, deep))
    return {"segments": [], "device_traces": [entries]}


def measure(memfloor, path):
    """(exit code, peak RSS bytes, wall seconds, stderr) of `memfloor analyze PATH`. GNU time
    measures it: a child forked from this process would count this process's memory (the
    snapshot just built) as its own peak."""
    with tempfile.NamedTemporaryFile("r") as usage:
        start = time.monotonic()
        run = subprocess.run(["/usr/bin/time", "-o", usage.name, "-f", "%M", memfloor, "analyze",
                              path, "--no-table", "-o", os.devnull],
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, check=False)
        wall = time.monotonic() - start
        lines = [line for line in usage.read().splitlines() if line.strip().isdigit()]
    rss = int(lines[-1]) * 1024 if lines else 0
    return run.returncode, rss, wall, run.stderr.decode(errors="replace")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("memfloor")
    parser.add_argument("--sizes", default="10000,100000,1000000")
    parser.add_argument("--keep", help="write the snapshots here (default: a scratch folder)")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    out = args.keep or tempfile.mkdtemp(prefix="memfloor-snapshot-scale-")
    os.makedirs(out, exist_ok=True)
    failures = []
    print(f"{'file':<28} {'MB':>8} {'peak MB':>9} {'RSS/file':>9} {'wall s':>8} {'us/KB':>8}")
    per_byte = {}
    for shape in (wide_history, wide_state, shared_text):
        for n in sizes:
            name = f"{shape.__name__}_{n}.pickle"
            path = os.path.join(out, name)
            with open(path, "wb") as f:
                pickle.dump(shape(n), f, protocol=4)
            size = os.path.getsize(path)
            code, rss, wall, err = measure(args.memfloor, path)
            per_byte[(shape.__name__, n)] = wall / size
            print(f"{name:<28} {size / 1e6:8.2f} {rss / 1e6:9.1f} {rss / size:9.1f} {wall:8.2f} "
                  f"{wall * 1e6 / (size / 1024):8.2f}")
            if code != 0:
                failures.append(f"{name}: memfloor exit {code}: {err.strip()}")
            if rss > 50 * size + 100e6:
                failures.append(f"{name}: peak RSS {rss / 1e6:.0f} MB > 50 x file + 100 MB")
            if not args.keep:
                os.unlink(path)
        if len(sizes) >= 3:
            middle, largest = per_byte[(shape.__name__, sizes[-2])], per_byte[(shape.__name__,
                                                                               sizes[-1])]
            if largest > 3 * middle:
                failures.append(f"{shape.__name__}: time per byte grows {largest / middle:.1f}x "
                                f"from {sizes[-2]} to {sizes[-1]}: not linear")
    if not args.keep:
        os.rmdir(out)
    for f in failures:
        print("FAIL:", f, file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
