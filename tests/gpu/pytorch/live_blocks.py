#!/usr/bin/env python3
"""Diagnosis: the trace's live blocks at the end of the first iteration (text form on stdin)
against the allocator's blocks a program logged then (gpt2_steps.py --blocks FILE)."""
import json
import sys


def main() -> int:
    logged = {a: (s, st) for a, s, st in json.load(open(sys.argv[1]))}
    events = []
    for number, line in enumerate(sys.stdin):
        f = line.split()
        kv = dict(x.split("=", 1) for x in f[1:] if "=" in x)
        if f and f[0] == "marker" and f[1] == "pop" and "domain" not in kv:  # NVTX default domain
            events.append((int(kv["t"]), number, "pop", 0, 0))
        elif f and f[0] in ("alloc", "free") and "kind=block" in f:
            events.append((int(kv["t"]), number, f[0], int(kv["addr"], 16), int(kv["size"])))
    live = {}
    for _, _, what, addr, size in sorted(events):  # timestamp order, file order on ties
        if what == "pop":
            break
        if what == "alloc":
            live[addr] = size
        else:
            live.pop(addr, None)
    only_trace = {a: s for a, s in live.items() if a not in logged}
    only_torch = {a: v for a, v in logged.items() if a not in live}
    print(f"trace live {sum(live.values())} B in {len(live)}; torch {sum(s for s, _ in logged.values())}"
          f" B in {len(logged)}")
    print(f"only in trace: {len(only_trace)} blocks, {sum(only_trace.values())} B")
    print(f"only in torch: {len(only_torch)} blocks, {sum(s for s, _ in only_torch.values())} B:",
          sorted(only_torch.items())[:10])
    return 0


if __name__ == "__main__":
    sys.exit(main())
