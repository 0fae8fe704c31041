#!/usr/bin/env python3
"""Compares a memfloor report of an unmodified training loop with the program's own count.

  check_steps.py REPORT.json LOG.json [--label NAME] [--expect-source steps|markers] [--no-census]
                 [--ring]

Prints one row: the program, the allocator, its steps, the iterations the report found and from
what, how many idle windows have an allocated floor equal to the program's memory_allocated()
after that step (every window but the final one, which ends with the process; under
cudaMallocAsync, where the floor is the device's, less the bytes of the sites the report names
after a library: cuBLAS's and NCCL's own allocations, which PyTorch does not count), and the planted
holder: the path the census gave its bytes, against the bytes the program measured by releasing
it (not asked with --no-census: a report of a PyTorch memory snapshot, which holds no census).
With --ring (a PyTorch memory snapshot whose history kept only its last entries), the report's
iterations are the program's last steps: each is compared with its step, and the windows of the
steps the history dropped are counted apart. Exit 1 when a check fails.
"""
import argparse
import json
import sys

MIB = 1 << 20


def main_run(report):
    """The run that did the training: the one with the most allocations (torchrun's launcher and
    inductor's compile workers write runs of their own)."""
    return max(report["runs"], key=lambda run: run["trace"]["records"]["allocs"])


def library_bytes(row, kind):
    """Of a window's retained bytes, the libraries' own (cuBLAS's handles, NCCL's buffers): sites
    the report names after the library (`libcublas.so.13 via ...`). Under cudaMallocAsync the
    device level holds them and PyTorch's memory_allocated() does not."""
    return sum(site["bytes"] for site in row["top_sites"]
               if site["kind"] == kind and site["where"].startswith("lib")
               and ".so" in site["where"].split(" ")[0])


def window_floor(run, index, kind):
    """The idle floor of window `index` (1-based) less the libraries' own bytes, from its row or
    from the row its range repeats."""
    rows = {it["index"]: it for it in run["iterations"]}
    row = rows.get(index)
    if row is None:
        for r in run.get("iteration_ranges", []):
            if r["first"] <= index <= r["last"]:
                row = rows.get(r["like"])
    if row is None:
        return None
    for m in row["memory"]:
        if m["device"] == 0 and m["kind"] == kind:
            return m["idle"]["floor"], library_bytes(row, kind)
    return None


def holders(run, path_suffix):
    """(path, bytes) of every census holder whose path ends with the planted one's."""
    found = []
    for it in run["iterations"]:
        for held in it.get("held_by", []):
            for h in held["holders"]:
                if h["path"].endswith(path_suffix):
                    found.append((it["index"], h["path"], h["bytes"], h["class"]))
    return found


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("report")
    p.add_argument("log")
    p.add_argument("--label", default="")
    p.add_argument("--expect-source", default="steps")
    p.add_argument("--no-census", action="store_true", help="the holder is not asked for")
    p.add_argument("--ring", action="store_true",
                   help="the report's iterations are the program's last steps")
    args = p.parse_args()
    report = json.load(open(args.report))
    log = json.load(open(args.log))
    run = main_run(report)
    kinds = {m["kind"] for m in run["memory"]}
    kind = "block" if "block" in kinds else "device"
    label = args.label or f"{log['program']}/{log['backend']}"
    count = len(run["iterations"]) + sum(r["count"] for r in run.get("iteration_ranges", []))
    source = run["iteration_source"]
    windows = log["windows"][:-1]
    dropped = log["steps"] - count if args.ring and count < log["steps"] else 0
    windows = [w for w in windows if w["step"] > dropped]
    equal, diffs, libraries = 0, [], set()
    for w in windows:
        found = window_floor(run, w["step"] - dropped, kind)
        if found is None:
            diffs.append(None)
            continue
        floor, outside = found
        libraries.add(outside)
        diffs.append(floor - outside - w["allocated"])
        equal += floor - outside == w["allocated"]
    known = [d for d in diffs if d is not None]
    spread = f"diff {min(known)}..{max(known)} B" if known else "no window"
    if kind == "device":
        spread += ", less the libraries' own " + "/".join(
            f"{b / MIB:.2f}" for b in sorted(libraries)) + " MiB"
    named = holders(run, log["planted_path"])
    if named:
        index, path, held, cls = named[-1]
        holder = (f"{path} {held / MIB:.2f} MiB ({cls}, window {index}) vs planted "
                  f"{log['planted_bytes'] / MIB:.2f} MiB")
    else:
        holder = f"not named (planted {log['planted_bytes'] / MIB:.2f} MiB at {log['planted_path']})"
    warnings = run["anomalies"].get("warnings", [])
    if dropped:
        spread += f"; steps 1-{dropped} before the history's first entry"
    print(f"| {label} | {log['steps']} | {count} from {source} | {equal}/{len(windows)} "
          f"({spread}) | {holder} | {len(warnings)} warnings |")
    for w in warnings:
        print(f"  warning: {w}")
    ok = (source == args.expect_source and count == log["steps"] - dropped and windows and
          equal == len(windows) and
          (bool(named) or not log["planted_bytes"] or args.no_census))
    if not ok:
        print(f"  {label}: FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
