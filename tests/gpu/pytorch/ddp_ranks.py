"""Two ranks of a small DistributedDataParallel training loop, for `memfloor run -- torchrun`.

With the gloo backend (the default) both ranks share one GPU (NCCL refuses two ranks on one
device), so a one-GPU machine runs a real multi-process job: torchrun's environment (RANK,
WORLD_SIZE), gradients all-reduced between the processes, one trace per rank. With --backend nccl
each rank takes GPU LOCAL_RANK and NCCL makes its communicator's buffers (on one GPU: one rank). With --bug-rank R, rank R's model keeps
its last hidden activation, and through its autograd graph the forward's buffers, into the next
iteration (the seeds' shape): its idle floor is above the other rank's by about that much.

  torchrun --standalone --nproc-per-node 2 ddp_ranks.py --iterations 8 --bug-rank 1

With --count-log PATH (torchrun takes --log for its own) each rank writes its own count
(loop_log.py) to PATH.rankN.json: memory_allocated()
after each iteration's range closes, and the bytes the bug rank's `kept` held.
"""
import argparse
import os

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel

from loop_log import WindowLog


class Mlp(torch.nn.Module):
    def __init__(self, width, keep):
        super().__init__()
        self.up = torch.nn.Linear(width, 4 * width)
        self.down = torch.nn.Linear(4 * width, width)
        self.keep = keep
        self.kept = None

    def forward(self, x):
        hidden = torch.nn.functional.gelu(self.up(x))
        if self.keep:
            self.kept = hidden * 1.0  # outlives the iteration, with its graph
        return self.down(hidden)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--iterations", type=int, default=8)
    parser.add_argument("--width", type=int, default=2048)
    parser.add_argument("--batch", type=int, default=2048)
    parser.add_argument("--bug-rank", type=int, default=-1)
    parser.add_argument("--backend", choices=("gloo", "nccl"), default="gloo")
    parser.add_argument("--count-log", help="write this rank's own count to COUNT_LOG.rankN.json")
    args = parser.parse_args()
    local_rank = int(os.environ.get("LOCAL_RANK", "0")) if args.backend == "nccl" else 0
    device = torch.device("cuda", local_rank)
    torch.cuda.set_device(device)
    dist.init_process_group(args.backend, device_id=device if args.backend == "nccl" else None)
    rank = dist.get_rank()
    torch.manual_seed(0)
    model = Mlp(args.width, keep=rank == args.bug_rank).to(device)
    ddp = DistributedDataParallel(model)
    optimizer = torch.optim.AdamW(ddp.parameters(), lr=1e-3)
    generator = torch.Generator(device=device).manual_seed(rank)
    log = WindowLog(f"ddp-{args.backend}", "kept")
    for step in range(args.iterations):
        torch.cuda.nvtx.range_push(f"iteration {step + 1}")
        x = torch.randn(args.batch, args.width, device=device, generator=generator)
        loss = ddp(x).square().mean()
        loss.backward()
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
        torch.cuda.synchronize()
        torch.cuda.nvtx.range_pop()
        dist.barrier()
        log.after_step(step + 1)  # where the window ends: the barrier's work has freed its bytes
    print(f"rank {rank}: loss {loss.item():.6f} allocated {torch.cuda.memory_allocated()} "
          f"world {os.environ.get('WORLD_SIZE')}", flush=True)
    if args.count_log:
        log.measure_planted(lambda: setattr(model, "kept", None))
        log.write(f"{args.count_log}.rank{rank}.json", steps=args.iterations)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
