"""Time of torch.cuda.nvtx.range_push/range_pop in a training loop, for a range name chosen to
make a backtracking regex engine take exponential time on `memfloor run --iteration-pattern
'(a+)+'` ('a' * 27 + '!'). Prints the median microseconds per push+pop over --pairs calls,
taken after optimizer steps (so the companion's census watch is on). Untraced, and traced with
that pattern, the two must be of one order: the companion matches names with RE2 (linear)."""

import argparse
import statistics
import time

import torch


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=4)
    parser.add_argument("--pairs", type=int, default=200)
    parser.add_argument("--label", default="")
    args = parser.parse_args()
    model = torch.nn.Linear(64, 64).cuda()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    name = "a" * 27 + "!"
    per_pair = []
    for step in range(args.steps):
        torch.cuda.nvtx.range_push(f"iteration {step}")
        optimizer.zero_grad()
        model(torch.randn(32, 64, device="cuda")).square().mean().backward()
        optimizer.step()
        torch.cuda.nvtx.range_pop()
        for _ in range(args.pairs):
            start = time.perf_counter()
            torch.cuda.nvtx.range_push(name)
            torch.cuda.nvtx.range_pop()
            per_pair.append(time.perf_counter() - start)
    torch.cuda.synchronize()
    print(f"{args.label}: {len(per_pair)} push+pop of {name!r}: median "
          f"{statistics.median(per_pair) * 1e6:.1f} us, max {max(per_pair) * 1e6:.1f} us")


if __name__ == "__main__":
    main()
