#!/usr/bin/env python3
"""A plain training loop (encoder_loop.py, not compiled) that records PyTorch's own memory history
and dumps its snapshot, as its users do (torch.cuda.memory._record_memory_history,
_dump_snapshot), under no memfloor at all. It logs its own memory_allocated() after each step to
--log. With a small --max-entries the history's ring drops the oldest entries, the weights'
allocations among them, as a long run's does.

  python3 snapshot_loop.py --log log.json --snapshot snap.pickle [--json snap.json]
  memfloor analyze snap.pickle -o report.json && check_steps.py report.json log.json --no-census
"""
import argparse
import json
import sys

import torch

import encoder_loop


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    encoder_loop.add_arguments(p)
    p.add_argument("--max-entries", type=int, default=100_000)
    p.add_argument("--snapshot", required=True, help="the pickle _dump_snapshot writes")
    p.add_argument("--json", help="also the same snapshot as JSON")
    args = p.parse_args()
    torch.cuda.memory._record_memory_history(max_entries=args.max_entries)
    log = encoder_loop.run(args, "snapshot", compiled=False)
    torch.cuda.memory._dump_snapshot(args.snapshot)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(torch.cuda.memory._snapshot(), f)
    log.measure_planted(encoder_loop.release_planted)
    log.write(args.log, steps=args.steps)
    return 0


if __name__ == "__main__":
    sys.exit(main())
