#!/usr/bin/env python3
"""The census' cost on a process with many Python objects and tensors (CPU tensors, so it runs
anywhere): by default 1M containers (250k records of an instance, a tuple, a list and a dict,
besides 1M ints and strings) and 10k tensors, 10 of them with a small autograd graph. The census
enters the instances; it looks into the lists (of one int) without entering them, and skips the
tuples and dicts of atoms, which Python no longer tracks. `--records 500000`: a million objects.

  PYTHONPATH=python python3 bench/census_speed.py [--records 250000] [--tensors 10000]
"""
import argparse
import statistics
import time

import torch

from memfloor.census import take_census


class Record:
    def __init__(self, i):
        self.number = i
        self.name = str(i)
        self.pair = (i, i + 1)
        self.items = [i]
        self.extra = {"k": i}


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--records", type=int, default=250_000)
    p.add_argument("--tensors", type=int, default=10_000)
    p.add_argument("--repeat", type=int, default=5)
    args = p.parse_args()
    records = [Record(i) for i in range(args.records)]
    tensors = {f"t{i}": torch.zeros(16) for i in range(args.tensors)}
    weight = torch.randn(16, requires_grad=True)
    graphs = [(tensors[f"t{i}"] * weight).sum() for i in range(min(10, args.tensors))]
    seconds = []
    for _ in range(args.repeat):
        census = take_census(torch, device_type="cpu")
        seconds.append(census.seconds)
    print(f"census: {census.objects} objects walked, {len(census.storages)} storages, "
          f"{census.held_bytes} bytes; median {statistics.median(seconds):.3f} s, "
          f"min {min(seconds):.3f} s over {args.repeat}")
    # How fast this interpreter and machine are, to compare numbers taken elsewhere.
    start = time.perf_counter()
    {id(record): i for i, record in enumerate(records)}
    print(f"reference: a dict of {len(records)} ids in {time.perf_counter() - start:.3f} s")
    del records, tensors, graphs


if __name__ == "__main__":
    main()
