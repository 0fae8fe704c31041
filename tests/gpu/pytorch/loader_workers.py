#!/usr/bin/env python3
"""A training loop fed by a DataLoader with forked workers, for memfloor run: the workers fork
from a traced process (the hook and the companion stay off in them) while the parent trains.

  loader_workers.py --log LOG.json
"""
import argparse
import json
import sys

import torch


class Numbers(torch.utils.data.Dataset):
    def __len__(self):
        return 64

    def __getitem__(self, index):
        return torch.full((256,), float(index))


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--log", required=True)
    args = p.parse_args()
    torch.manual_seed(0)
    model = torch.nn.Linear(256, 256).cuda()
    opt = torch.optim.SGD(model.parameters(), lr=1e-3)
    loader = torch.utils.data.DataLoader(Numbers(), batch_size=8, num_workers=2,
                                         multiprocessing_context="fork")
    windows = []
    for step, batch in enumerate(loader):
        torch.cuda.nvtx.range_push(f"iteration {step}")
        loss = model(batch.cuda()).pow(2).mean()
        loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)
        del loss
        torch.cuda.synchronize()
        torch.cuda.nvtx.range_pop()
        windows.append({"step": step, "allocated": torch.cuda.memory_allocated(),
                        "reserved": torch.cuda.memory_reserved()})
    with open(args.log, "w") as f:
        json.dump({"case": "loader", "backend": torch.cuda.get_allocator_backend(),
                   "windows": windows}, f)
    return 0


if __name__ == "__main__":
    sys.exit(main())
