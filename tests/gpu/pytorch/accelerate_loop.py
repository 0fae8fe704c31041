#!/usr/bin/env python3
"""accelerate's training loop as its documentation writes it (Accelerator, prepare, backward,
step, zero_grad), unmodified, on GPT-2 built from a config, no NVTX range. After zero_grad the loop
logs the program's own memory_allocated() to --log. Unless --fixed, a module-level dict keeps the
last step's logits (CACHE['logits'], replaced each step), which the census should name.
"""
import argparse
import sys

import torch
from accelerate import Accelerator
from transformers import GPT2Config, GPT2LMHeadModel

from loop_log import WindowLog

CACHE = {}


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--steps", type=int, default=10)
    p.add_argument("--layers", type=int, default=4)
    p.add_argument("--seq", type=int, default=256)
    p.add_argument("--batch", type=int, default=4)
    p.add_argument("--fixed", action="store_true")
    p.add_argument("--log", required=True)
    args = p.parse_args()
    torch.manual_seed(0)
    config = GPT2Config(n_layer=args.layers, n_positions=args.seq)
    ids = torch.randint(0, config.vocab_size, (args.steps * args.batch, args.seq))
    data = torch.utils.data.TensorDataset(ids)
    accelerator = Accelerator()
    model = GPT2LMHeadModel(config)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
    loader = torch.utils.data.DataLoader(data, batch_size=args.batch)
    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda step: 1.0)
    model, optimizer, loader, scheduler = accelerator.prepare(model, optimizer, loader, scheduler)
    log = WindowLog("accelerate", "CACHE['logits']")
    model.train()
    for step, (batch,) in enumerate(loader, start=1):
        outputs = model(input_ids=batch, labels=batch)
        accelerator.backward(outputs.loss)
        optimizer.step()
        scheduler.step()
        optimizer.zero_grad()
        if not args.fixed:
            CACHE["logits"] = outputs.logits
        del outputs
        log.after_step(step)
    log.measure_planted(CACHE.clear)
    log.write(args.log, steps=args.steps)
    return 0


if __name__ == "__main__":
    sys.exit(main())
