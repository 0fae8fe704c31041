"""The plain training loop compile_loop.py and snapshot_loop.py run: a small pre-norm transformer
from torch.nn, AdamW, no NVTX range. After zero_grad(set_to_none=True) it logs the program's own
memory_allocated(). Unless --fixed, the loop keeps the last output, with its graph, on
`state.last` (a module-level object, replaced each step), which the census should name."""
import argparse
import types

import torch

from loop_log import WindowLog

state = types.SimpleNamespace(last=None)


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--steps", type=int, default=10)
    p.add_argument("--width", type=int, default=1024)
    p.add_argument("--layers", type=int, default=2)
    p.add_argument("--seq", type=int, default=1024)
    p.add_argument("--batch", type=int, default=8)
    p.add_argument("--fixed", action="store_true")
    p.add_argument("--log", required=True)


def run(args: argparse.Namespace, program: str, compiled: bool) -> WindowLog:
    """Trains args.steps steps (the model torch.compile'd when `compiled`); the log, not written."""
    torch.manual_seed(0)
    layer = torch.nn.TransformerEncoderLayer(args.width, nhead=8, dim_feedforward=4 * args.width,
                                             dropout=0.0, batch_first=True, norm_first=True)
    model = torch.nn.TransformerEncoder(layer, args.layers).cuda()
    if compiled:
        model = torch.compile(model)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
    x = torch.randn(args.batch, args.seq, args.width, device="cuda")
    log = WindowLog(program, "state.last")
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
    return log


def release_planted() -> None:
    state.last = None
