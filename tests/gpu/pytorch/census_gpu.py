#!/usr/bin/env python3
"""Censuses on a GPU (scripts/gpu-torch.sh, part census): the companion's census schedule,
registered on PyTorch 2's global optimizer hook, with a recording stand-in for the hook. A model
keeps its logits in an attribute (their graph is freed by backward: it saves nothing by the
census); after every AdamW step a census must find the parameters, gradients, optimizer state and
the kept logits on cuda:0 with their roles, and leave torch.cuda.memory_allocated() as it found
it. Prints one line, OK or FAIL.

  PYTHONPATH=companion python3 tests/gpu/pytorch/census_gpu.py [--allocator native|async]
"""
import argparse
import os
import sys


class RecordingHook:
    has_census = True

    def __init__(self):
        self.calls = []

    def census(self, header, entries):
        self.calls.append((header.step, header.device, header.complete,
                           {entry.path: (entry.role, entry.nbytes, list(entry.via_graph))
                            for entry in entries}))
        return len(entries) + 1


def ending(paths, suffix):
    return [value for path, value in paths.items() if path.endswith(suffix)]


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--allocator", choices=["native", "async"], default="native")
    p.add_argument("--steps", type=int, default=4)
    args = p.parse_args()
    if args.allocator == "async":
        os.environ["PYTORCH_CUDA_ALLOC_CONF"] = "backend:cudaMallocAsync"
    import torch

    from memfloor import census_schedule

    class Model(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.up = torch.nn.Linear(1024, 4096)
            self.head = torch.nn.Linear(4096, 8192)

        def forward(self, x):
            self.kept_logits = self.head(torch.relu(self.up(x)))  # kept into the next step
            return self.kept_logits

    model = Model().cuda()
    optimizer = torch.optim.AdamW(model.parameters())
    hook = RecordingHook()
    schedule = census_schedule.CensusSchedule(torch, census_schedule.parse_schedule("every"),
                                              find=lambda: hook)
    around = []
    take = schedule.take

    def measured_take():
        torch.cuda.synchronize()
        before = torch.cuda.memory_allocated()
        take()
        torch.cuda.synchronize()
        around.append((before, torch.cuda.memory_allocated()))

    schedule.take = measured_take
    problems = []
    if census_schedule.step_post_hook_registrar(torch) is None:
        problems.append(f"PyTorch {torch.__version__} has no global optimizer step hook")
    schedule.start()
    for _ in range(args.steps):
        loss = model(torch.randn(256, 1024, device="cuda")).float().pow(2).mean()
        loss.backward()
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
    allocated = around[-1][0] if around else 0  # at the last census

    steps = [call[0] for call in hook.calls]
    if steps != list(range(1, args.steps + 1)):
        problems.append(f"censuses after steps {steps}, not 1..{args.steps}")
    if any(before != after for before, after in around):
        problems.append(f"memory_allocated changed by a census: {around}")
    held = 0
    if hook.calls:
        _, device, complete, paths = hook.calls[-1]
        held = sum(nbytes for _, nbytes, _ in paths.values())
        weight = model.up.weight.numel() * model.up.weight.element_size()
        expected = {".model.up.weight": [("parameter", weight, [])],
                    ".model.up.weight.grad": [("gradient", weight, [])],
                    ".optimizer.state[model.up.weight]['exp_avg']": [
                        ("optimizer_state", weight, [])],
                    ".model.kept_logits": [("other", 256 * 8192 * 4, [])]}
        for suffix, want in expected.items():
            if ending(paths, suffix) != want:
                problems.append(f"{suffix}: {ending(paths, suffix)}, not {want}")
        if (device, complete) != (0, 1):
            problems.append(f"device {device}, complete {complete}")
    verdict = "FAIL: " + "; ".join(problems) if problems else "OK"
    print(f"census on {args.allocator} ({torch.__version__}): {verdict}: {len(hook.calls)} "
          f"censuses; memory_allocated unchanged by {len(around)}; last census held {held} of "
          f"{allocated} allocated bytes")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
