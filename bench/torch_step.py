#!/usr/bin/env python3
"""PyTorch training-step benchmark and live-bytes witness for memfloor (issue 3 (b)).

A 4-layer bf16 transformer encoder (d_model 1024, seq 2048, batch 8), AdamW, one NVTX range
"iteration N" per step. Prints the median step time; with --log FILE also writes, per step,
torch.cuda.memory_allocated() read immediately before the iteration's NVTX push, so that the
trace's live bytes at that marker can be compared with PyTorch's own accounting.

  python3 bench/torch_step.py --steps 30 --warmup 5 --log steps.json
  memfloor run --torch-allocator async -- python3 bench/torch_step.py ...
"""
import argparse
import json
import statistics
import sys
import time

import torch


def build(d_model, layers):
    layer = torch.nn.TransformerEncoderLayer(
        d_model=d_model, nhead=16, dim_feedforward=4 * d_model, dropout=0.0,
        batch_first=True, norm_first=True)
    return torch.nn.TransformerEncoder(layer, num_layers=layers).cuda()


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--steps", type=int, default=30, help="measured steps")
    p.add_argument("--warmup", type=int, default=5)
    p.add_argument("--d-model", type=int, default=1024)
    p.add_argument("--layers", type=int, default=4)
    p.add_argument("--seq", type=int, default=2048)
    p.add_argument("--batch", type=int, default=8)
    p.add_argument("--log", help="write per-step memory_allocated() here (JSON)")
    p.add_argument("--label", default="", help="printed with the result")
    args = p.parse_args()

    torch.manual_seed(0)
    model = build(args.d_model, args.layers)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
    x = torch.randn(args.batch, args.seq, args.d_model, device="cuda")
    target = torch.randn_like(x)

    times, launches, allocated = [], [], []
    backend = torch.cuda.get_allocator_backend()
    for step in range(args.warmup + args.steps):
        torch.cuda.synchronize()
        before = torch.cuda.memory_allocated()
        torch.cuda.nvtx.range_push(f"iteration {step}")
        t0 = time.perf_counter()
        with torch.autocast("cuda", dtype=torch.bfloat16):
            loss = torch.nn.functional.mse_loss(model(x).float(), target)
        loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)
        launched = time.perf_counter()  # the CPU's part: every kernel of the step launched
        torch.cuda.synchronize()
        t1 = time.perf_counter()
        torch.cuda.nvtx.range_pop()
        allocated.append({"step": step, "memory_allocated": before})
        if step >= args.warmup:
            times.append((t1 - t0) * 1e3)
            launches.append((launched - t0) * 1e3)

    median = statistics.median(times)
    print(f"torch_step {args.label} backend={backend} steps={len(times)} "
          f"step_ms_median={median:.3f} min={min(times):.3f} max={max(times):.3f} "
          f"launch_ms_median={statistics.median(launches):.3f}", flush=True)
    if args.log:
        with open(args.log, "w") as f:
            json.dump({"backend": backend, "steps": allocated, "step_ms": times}, f)
    return 0


if __name__ == "__main__":
    sys.exit(main())
