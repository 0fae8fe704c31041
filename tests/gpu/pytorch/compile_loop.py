#!/usr/bin/env python3
"""A plain training loop over a torch.compile'd model (a small pre-norm transformer from
torch.nn), no NVTX range. After zero_grad(set_to_none=True) the loop logs the program's own
memory_allocated() to --log. Unless --fixed, the loop keeps the last output, with its graph, on
`state.last` (a module-level object, replaced each step), which the census should name.
"""
import argparse
import sys
import types

import torch

from loop_log import WindowLog

state = types.SimpleNamespace(last=None)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--steps", type=int, default=10)
    p.add_argument("--width", type=int, default=1024)
    p.add_argument("--layers", type=int, default=2)
    p.add_argument("--seq", type=int, default=1024)
    p.add_argument("--batch", type=int, default=8)
    p.add_argument("--fixed", action="store_true")
    p.add_argument("--log", required=True)
    args = p.parse_args()
    torch.manual_seed(0)
    layer = torch.nn.TransformerEncoderLayer(args.width, nhead=8, dim_feedforward=4 * args.width,
                                             dropout=0.0, batch_first=True, norm_first=True)
    model = torch.compile(torch.nn.TransformerEncoder(layer, args.layers).cuda())
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
    x = torch.randn(args.batch, args.seq, args.width, device="cuda")
    log = WindowLog("compile", "state.last")
    for step in range(1, args.steps + 1):
        out = model(x)
        loss = out.float().pow(2).mean()
        loss.backward()
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
        if not args.fixed:
            state.last = out * 1.0  # outlives the step
        del out, loss
        log.after_step(step)
    log.measure_planted(lambda: setattr(state, "last", None))
    log.write(args.log, steps=args.steps)
    return 0


if __name__ == "__main__":
    sys.exit(main())
