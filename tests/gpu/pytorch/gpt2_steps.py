#!/usr/bin/env python3
"""A few training steps of transformers' GPT-2 built from a config (random weights, no download),
with its own AdamW; NVTX range "iteration N" per step; the idle windows' memory_allocated() and
memory_reserved(), parameter and optimizer-state bytes logged to --log (JSON)."""
import argparse
import json
import sys

import torch
from transformers import GPT2Config, GPT2LMHeadModel


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--steps", type=int, default=6)
    p.add_argument("--layers", type=int, default=6)
    p.add_argument("--seq", type=int, default=512)
    p.add_argument("--batch", type=int, default=8)
    p.add_argument("--log", required=True)
    p.add_argument("--blocks", help="write the allocator's blocks after step 0 here (JSON)")
    args = p.parse_args()
    torch.manual_seed(0)
    config = GPT2Config(n_layer=args.layers, n_positions=args.seq)
    model = GPT2LMHeadModel(config).cuda()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
    ids = torch.randint(0, config.vocab_size, (args.batch, args.seq), device="cuda")
    windows = []
    for step in range(args.steps):
        torch.cuda.nvtx.range_push(f"iteration {step}")
        out = model(input_ids=ids, labels=ids)
        out.loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)
        del out
        torch.cuda.synchronize()
        torch.cuda.nvtx.range_pop()
        windows.append({"step": step, "allocated": torch.cuda.memory_allocated(),
                        "reserved": torch.cuda.memory_reserved()})
        if step == 0 and args.blocks:
            state = torch.cuda.memory._snapshot()
            blocks = [[b["address"], b["size"], b["state"]] for s in state["segments"]
                      for b in s["blocks"] if b["state"] != "inactive"]
            with open(args.blocks, "w") as f:
                json.dump(blocks, f)
    params = sum(t.numel() * t.element_size() for t in model.parameters())
    buffers = sum(t.numel() * t.element_size() for t in model.buffers() if t.is_cuda)
    # Everything still allocated is persistent (the step's tensors are gone): the model, the
    # optimizer state, the input, and PyTorch's cuBLAS workspaces (one per thread that ran a matmul).
    persistent = torch.cuda.memory_allocated()
    torch._C._cuda_clearCublasWorkspaces()
    workspaces = persistent - torch.cuda.memory_allocated()
    state = sum(t.numel() * t.element_size() for s in opt.state.values() for t in s.values()
                if torch.is_tensor(t) and t.is_cuda)
    with open(args.log, "w") as f:
        json.dump({"model": "gpt2", "backend": torch.cuda.get_allocator_backend(),
                   "windows": windows, "parameter_bytes": params,
                   "optimizer_state_bytes": state, "buffer_bytes": buffers,
                   "input_bytes": ids.numel() * ids.element_size(),
                   "cublas_workspace_bytes": workspaces,
                   "persistent_allocated_bytes": persistent}, f)
    return 0


if __name__ == "__main__":
    sys.exit(main())
