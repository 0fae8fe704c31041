#!/usr/bin/env python3
"""The site names of a memfloor report of a training loop, as a reader looks at them.

  site_names.py REPORT.json [--label NAME] [--top 10]

Prints, for the run that did the training, the top retaining sites of the last idle window that
another iteration ends, on the memory the floor is read from (the allocator's blocks where there
are any), and per memory the sites at its largest peak: each name with its bytes and how many
stacks it stands for (sites of one name merged, as the table does). For each peak it says how
many of its bytes lie in sites without a name ("(no stack)", "(empty stack)", "(unknown stack
N)"), and the modules holding the most at the peak where the report has them; over 1% of a
peak without a name is a failure (exit 1). The report should be written with a large --top,
so that every site at a peak is listed.
"""
import argparse
import json
import sys

from check_steps import main_run

UNNAMED = ("(no stack)", "(empty stack)", "(unknown stack")
MAX_UNNAMED = 0.01  # of a peak's bytes


def fmt(n: int) -> str:
    for unit, size in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= size:
            return f"{n / size:.1f} {unit}"
    return f"{n} B"


def by_name(sites):
    """(where, bytes, stacks) per name, most bytes first."""
    rows = {}
    for site in sites:
        total, stacks = rows.get(site["where"], (0, 0))
        rows[site["where"]] = (total + site["bytes"], stacks + 1)
    return sorted(((w, b, n) for w, (b, n) in rows.items()), key=lambda r: -r[1])


def line(where: str, total: int, stacks: int) -> str:
    return f"  {fmt(total):>10}  {where}" + (f"  ({stacks} stacks)" if stacks > 1 else "")


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("report")
    p.add_argument("--label", default="")
    p.add_argument("--top", type=int, default=10)
    args = p.parse_args()
    with open(args.report) as f:
        run = main_run(json.load(f))
    iterations = run["iterations"]
    if not iterations:
        print(f"{args.label}: no iterations")
        return 1
    window = iterations[-2] if len(iterations) >= 2 else iterations[-1]
    head = "block" if any(s["kind"] == "block" for s in window["top_sites"]) else "device"
    print(f"## {args.label}: top retaining sites ({head}), idle window after iteration "
          f"{window['index']}")
    for row in by_name([s for s in window["top_sites"] if s["kind"] == head])[:args.top]:
        print(line(*row))
    failed = False
    kinds = [m["kind"] for m in iterations[0]["memory"]]
    for kind in kinds:
        peaks = [(it, m) for it in iterations for m in it["memory"]
                 if m["kind"] == kind and m.get("peak_composition")]
        if not peaks:
            continue
        it, m = max(peaks, key=lambda p: p[1]["peak"])
        sites = m["peak_composition"]["sites"]
        unnamed = sum(s["bytes"] for s in sites if s["where"].startswith(UNNAMED))
        share = unnamed / m["peak"] if m["peak"] else 0.0
        verdict = "FAIL" if share > MAX_UNNAMED else "ok"
        failed |= share > MAX_UNNAMED
        print(f"## {args.label}: {m['device']}:{kind} peak {fmt(m['peak'])} in iteration "
              f"{it['index']}; without a name {fmt(unnamed)} ({100 * share:.2f}%, {verdict})")
        for row in by_name(sites)[:args.top]:
            print(line(*row))
        modules = m["peak_composition"].get("modules", [])
        if modules:
            print(f"## {args.label}: modules at that peak")
            for module in modules[:args.top]:
                print(line(module["module"], module["bytes"], 1))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
