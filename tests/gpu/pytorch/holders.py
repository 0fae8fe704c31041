#!/usr/bin/env python3
"""Planted holders for memfloor's census checks (scripts/gpu-torch.sh, part "census"): one per --case.

  graph   each layer keeps a small tensor on `self.mlp_norm_manager.tensor` whose autograd graph
          (never backwarded) pins the layer's [batch, 4*width] activation: the first seed's mechanism
  list    a module-level list gains a 4 MiB slice of an activation every step (a leak)
  cache   a module-level dict keeps the last step's hidden state (replaced every step)
  plain   nothing planted: weights, AdamW state, gradients and per-step activations only

--fixed runs the same program with the holder released where the fix would release it.

Each step is an NVTX range "iteration N". After each step, in the idle window, the script logs
torch.cuda.memory_allocated() to --log (JSON). After the last window it releases the planted
holder and logs how many bytes that freed: the bytes the holder kept, which the census must name.
"""
import argparse
import json
import sys

import torch

HISTORY = []
CACHE = {}


class Manager:
    """What the seed's layer keeps its offloaded norm output on."""

    def __init__(self, tensor):
        self.tensor = tensor


class Block(torch.nn.Module):
    def __init__(self, width: int, plant: bool):
        super().__init__()
        self.up = torch.nn.Linear(width, 4 * width)
        self.down = torch.nn.Linear(4 * width, width)
        self.scale = torch.nn.Parameter(torch.ones(4 * width))
        self.plant = plant
        self.mlp_norm_manager = None

    def forward(self, x):
        a = torch.nn.functional.gelu(self.up(x))
        if self.plant:
            # A side output the loss never uses: its graph keeps `a` saved until it is dropped.
            self.mlp_norm_manager = Manager((a * self.scale).sum(-1, keepdim=True))
        return x + self.down(a)


class Model(torch.nn.Module):
    def __init__(self, width: int, layers: int, plant: bool):
        super().__init__()
        self.layers = torch.nn.ModuleList([Block(width, plant) for _ in range(layers)])

    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
        return x


def release(case: str, model: Model) -> None:
    if case == "graph":
        for layer in model.layers:
            layer.mlp_norm_manager = None
    elif case == "list":
        HISTORY.clear()
    elif case == "cache":
        CACHE.clear()


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--case", choices=["graph", "list", "cache", "plain"], required=True)
    p.add_argument("--fixed", action="store_true")
    p.add_argument("--steps", type=int, default=8)
    p.add_argument("--width", type=int, default=1024)
    p.add_argument("--layers", type=int, default=2)
    p.add_argument("--batch", type=int, default=4096)
    p.add_argument("--log", required=True)
    args = p.parse_args()

    torch.manual_seed(0)
    # No local names a layer: the census would name the layer's tensors through it (the shortest
    # path), where the report should show them as the model's.
    model = Model(args.width, args.layers, plant=args.case == "graph").cuda()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
    windows = []
    for step in range(args.steps):
        torch.cuda.nvtx.range_push(f"iteration {step}")
        x = torch.randn(args.batch, args.width, device="cuda")
        y = model(x)
        loss = y.float().pow(2).mean()
        loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)
        if args.case == "list":
            HISTORY.append(y[: args.batch // 4].detach().clone())
        elif args.case == "cache":
            CACHE["last_hidden"] = y.detach()
        if args.fixed:
            release(args.case, model)
        del x, y, loss
        torch.cuda.synchronize()
        torch.cuda.nvtx.range_pop()
        windows.append({"step": step, "allocated": torch.cuda.memory_allocated()})
    before = torch.cuda.memory_allocated()
    release(args.case, model)
    planted = before - torch.cuda.memory_allocated()
    params = sum(p.numel() * p.element_size() for p in model.parameters())
    state = sum(t.numel() * t.element_size() for s in opt.state.values() for t in s.values()
                if torch.is_tensor(t) and t.is_cuda)
    with open(args.log, "w") as f:
        json.dump({"case": args.case, "fixed": args.fixed, "windows": windows,
                   "planted_bytes": planted, "parameter_bytes": params,
                   "optimizer_state_bytes": state,
                   "backend": torch.cuda.get_allocator_backend()}, f)
    return 0


if __name__ == "__main__":
    sys.exit(main())
