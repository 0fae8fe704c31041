#!/usr/bin/env python3
"""Planted PyTorch retention for memfloor's GPU checks (scripts/gpu-torch.sh): one per --case.

  attr       a module attribute keeps the logits (and their autograd graph) into the next step
  list       a list gains a 4 MiB tensor every step (a leak the program frees at exit)
  plain      nothing planted: weights, AdamW state and per-step activations only

Each step is an NVTX range "iteration N". After each step, in the idle window, the script logs
torch.cuda.memory_allocated() and memory_reserved() to --log (JSON), with the line of the planted
statement, so that the report's floors and site names can be checked against them.
"""
import argparse
import inspect
import json
import sys

import torch

KEPT = []


class Model(torch.nn.Module):
    def __init__(self, width: int, vocab: int):
        super().__init__()
        self.up = torch.nn.Linear(width, 4 * width)
        self.down = torch.nn.Linear(4 * width, width)
        self.head = torch.nn.Linear(width, vocab)
        self.keep = False

    def forward(self, x):
        logits = self.head(self.down(torch.relu(self.up(x))))
        if self.keep:
            self.kept_logits = logits  # PLANT attr
        return logits


def grow():
    KEPT.append(torch.empty(1 << 20, device="cuda"))  # PLANT list


def plant_line(case: str) -> int:
    for number, line in enumerate(inspect.getsource(sys.modules[__name__]).splitlines(), 1):
        if line.rstrip().endswith(f"# PLANT {case}"):
            return number
    return 0


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--case", choices=["attr", "list", "plain"], required=True)
    p.add_argument("--steps", type=int, default=8)
    p.add_argument("--width", type=int, default=1024)
    p.add_argument("--batch", type=int, default=4096)
    p.add_argument("--vocab", type=int, default=8192)
    p.add_argument("--log", "--log-file", dest="log", required=True)  # torchrun: --log-file
    args = p.parse_args()

    torch.manual_seed(0)
    model = Model(args.width, args.vocab).cuda()
    model.keep = args.case == "attr"
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
    windows = []
    for step in range(args.steps):
        torch.cuda.nvtx.range_push(f"iteration {step}")
        x = torch.randn(args.batch, args.width, device="cuda")
        loss = model(x).float().pow(2).mean()
        loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)
        if args.case == "list":
            grow()
        del x, loss
        torch.cuda.synchronize()
        torch.cuda.nvtx.range_pop()
        windows.append({"step": step, "allocated": torch.cuda.memory_allocated(),
                        "reserved": torch.cuda.memory_reserved()})
    params = sum(p.numel() * p.element_size() for p in model.parameters())
    state = sum(t.numel() * t.element_size() for s in opt.state.values() for t in s.values()
                if torch.is_tensor(t) and t.is_cuda)
    with open(args.log, "w") as f:
        json.dump({"case": args.case, "file": __file__, "plant_line": plant_line(args.case),
                   "backend": torch.cuda.get_allocator_backend(), "windows": windows,
                   "parameter_bytes": params, "optimizer_state_bytes": state}, f)
    return 0


if __name__ == "__main__":
    sys.exit(main())
