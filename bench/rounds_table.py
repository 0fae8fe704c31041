#!/usr/bin/env python3
"""The table of an interleaved benchmark: per mode the median and interquartile range over rounds,
and the ratio to a baseline mode taken within each round, so that a slow round moves every mode
alike and drops out of the ratio.

Input: lines "ROUND MODE VALUE" (what bench/hook_rounds.sh and bench/torch_rounds.sh write; "#"
starts a comment). A round that lacks the baseline gives no ratios.

  bench/rounds_table.py rounds.txt --baseline minimal --unit "ns/call" \\
      --limit hook-none=1.1 --limit hook-native=1.3
  bench/rounds_table.py steps.txt --baseline untraced --unit ms --percent --limit native=3
"""
import argparse
import statistics
import sys
from collections import OrderedDict


def quartiles(values):
    """(q1, median, q3) of values, by linear interpolation between the closest ranks."""
    v = sorted(values)
    if len(v) == 1:
        return v[0], v[0], v[0]
    q1, q2, q3 = statistics.quantiles(v, n=4, method="inclusive")
    return q1, q2, q3


def read_rounds(lines, source="<input>"):
    """{mode: {round: value}}, modes in order of first appearance."""
    table = OrderedDict()
    for number, line in enumerate(lines, 1):
        text = line.split("#", 1)[0].strip()
        if not text:
            continue
        parts = text.split()
        if len(parts) != 3:
            raise ValueError(f"{source}:{number}: expected 'ROUND MODE VALUE', got {line.strip()!r}")
        round_, mode, value = parts
        try:
            table.setdefault(mode, {})[round_] = float(value)
        except ValueError:
            raise ValueError(f"{source}:{number}: not a number: {value!r}") from None
    return table


def ratios(table, mode, baseline):
    """Per round, mode / baseline, over the rounds that have both."""
    base = table.get(baseline, {})
    return [v / base[r] for r, v in table[mode].items() if r in base and base[r] > 0]


def parse_limits(items):
    limits = {}
    for item in items:
        mode, _, value = item.partition("=")
        if not mode or not value:
            raise ValueError(f"--limit: expected MODE=NUMBER, got {item!r}")
        limits[mode] = float(value)
    return limits


def render(table, baseline, unit, percent=False, limits=None, title=None):
    """The table as lines of text: a summary row per mode, then the per-round ratios."""
    limits = limits or {}
    rounds = sorted({r for values in table.values() for r in values}, key=_round_key)
    out = []
    if title:
        out.append(f"{title}: {len(rounds)} interleaved rounds, median [interquartile range]")
    against = f"% over {baseline}" if percent else f"/ {baseline}"
    out.append(f"{'mode':<14} {unit + ' median':>14} {'[q1 q3]':>21}   {against + ' median':>22} "
               f"{'[q1 q3]':>17}  limit")
    for mode, values in table.items():
        q1, med, q3 = quartiles(list(values.values()))
        row = f"{mode:<14} {med:>14.3f} [{q1:>9.3f} {q3:>9.3f}]"
        r = ratios(table, mode, baseline)
        if r and mode != baseline:
            r1, rmed, r3 = quartiles(r)
            fmt = (lambda x: f"{100 * (x - 1):+.2f}%") if percent else (lambda x: f"{x:.3f}")
            row += f"   {fmt(rmed):>22} [{fmt(r1):>7} {fmt(r3):>7}]"
            if mode in limits:
                limit = limits[mode]
                value = 100 * (rmed - 1) if percent else rmed
                shown = f"{limit:g}%" if percent else f"{limit:g}"
                row += f"  <= {shown}: {'ok' if value <= limit else 'OVER'}"
        out.append(row.rstrip())
    others = [m for m in table if m != baseline]
    if others and baseline in table:
        out.append(f"per round, {against}:")
        out.append(f"{'round':<7}" + "".join(f"{m:>14}" for m in others))
        for r in rounds:
            cells = []
            for m in others:
                if r in table[m] and r in table[baseline] and table[baseline][r] > 0:
                    x = table[m][r] / table[baseline][r]
                    cells.append(f"{100 * (x - 1):+13.2f}%" if percent else f"{x:>14.3f}")
                else:
                    cells.append(f"{'-':>14}")
            out.append(f"{r:<7}" + "".join(cells))
    return out


def _round_key(r):
    return (0, int(r), r) if r.isdigit() else (1, 0, r)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("rounds", help="file of 'ROUND MODE VALUE' lines ('-': stdin)")
    p.add_argument("--baseline", required=True, help="the mode every ratio is taken against")
    p.add_argument("--unit", default="value", help="the values' unit, for the header")
    p.add_argument("--percent", action="store_true", help="ratios as percent over the baseline")
    p.add_argument("--limit", action="append", default=[],
                   help="MODE=NUMBER: the median ratio (or percent) it must not exceed")
    p.add_argument("--title", help="a first line naming the benchmark")
    args = p.parse_args(argv)
    try:
        if args.rounds == "-":
            lines = sys.stdin.readlines()
        else:
            with open(args.rounds) as f:
                lines = f.readlines()
        table = read_rounds(lines, args.rounds)
        limits = parse_limits(args.limit)
    except OSError as e:
        print(f"rounds_table: {args.rounds}: {e.strerror}", file=sys.stderr)
        return 2
    except ValueError as e:
        print(f"rounds_table: {e}", file=sys.stderr)
        return 2
    if not table:
        print(f"rounds_table: {args.rounds}: no rounds", file=sys.stderr)
        return 2
    print("\n".join(render(table, args.baseline, args.unit, args.percent, limits, args.title)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
