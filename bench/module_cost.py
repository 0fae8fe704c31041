#!/usr/bin/env python3
"""Runs a Python program under `memfloor run --modules` with part of the module paths' work
turned off, to tell where their cost goes (bench/torch_rounds.sh, modes modules-*):

  hooks    the global forward hooks run and keep the module stack, but tell nobody and mark no
           autograd node: the cost of PyTorch calling two Python hooks per module call
  forward  as hooks, and the path is told to the allocator's record: forward naming only
  full     nothing turned off (the same as `--modules` alone)
  alternate  full module paths on for BLOCK optimizer steps, then off for as many, in turn, in
           one process: each step's time is taken between one optimizer step and the next, and
           the medians of the steps with and without (the first step of each block left out) are
           printed at exit. Processes on a shared machine differ by more than the hooks cost; the
           steps of one process do not.

  memfloor run --modules -- python3 bench/module_cost.py forward bench/torch_step.py --steps 30

The companion builds its ModulePaths when the program imports torch, after this has patched the
class, so the patch holds for the program's whole run. Outside `memfloor run` (no companion on
the path) it says so and exits 2.
"""
import runpy
import sys

import atexit
import statistics
import time

VARIANTS = ("hooks", "forward", "full", "alternate")
BLOCK = 5  # optimizer steps per block of the alternate variant
WARMUP_STEPS = 5  # steps left out before the first block


def alternate(module_paths) -> None:
    """Turns the companion's module paths on and off every BLOCK optimizer steps."""
    made = []
    original = module_paths.install

    def install(self):
        made.append(self)
        return original(self)

    module_paths.install = install
    times = {True: [], False: []}
    state = {"steps": 0, "last": None, "on": True}

    def after_step(optimizer, args, kwargs):  # noqa: ARG001: the hook's signature
        now = time.perf_counter()
        state["steps"] += 1
        step = state["steps"] - WARMUP_STEPS
        if state["last"] is not None and step > 0 and step % BLOCK != 1:
            times[state["on"]].append((now - state["last"]) * 1e3)
        state["last"] = now
        if step >= 0 and step % BLOCK == 0 and made:
            state["on"] = not state["on"]
            for paths in made:
                if state["on"]:
                    original(paths)
                else:
                    paths.remove()

    def report():
        on, off = times[True], times[False]
        if on and off:
            a, b = statistics.median(on), statistics.median(off)
            print(f"module_cost alternate steps_on={len(on)} steps_off={len(off)} "
                  f"on_ms_median={a:.3f} off_ms_median={b:.3f} "
                  f"percent={(a - b) / b * 100:+.2f}", flush=True)
        else:
            print("module_cost alternate: too few optimizer steps", flush=True)

    atexit.register(report)
    import torch.optim.optimizer as optimizer_module  # after the companion's own import hook
    register = getattr(optimizer_module, "register_optimizer_step_post_hook", None)
    if register is None:
        raise SystemExit("module_cost.py: alternate needs PyTorch 2.0 or later "
                         "(register_optimizer_step_post_hook)")
    register(after_step)


def main() -> int:
    if len(sys.argv) < 3 or sys.argv[1] not in VARIANTS:
        print(f"usage: module_cost.py {{{'|'.join(VARIANTS)}}} PROGRAM [ARGS...]", file=sys.stderr)
        return 2
    variant, program = sys.argv[1], sys.argv[2]
    try:
        from memfloor.module_paths import ModulePaths
    except ImportError:
        print("module_cost.py: no memfloor companion on the path: run under `memfloor run`",
              file=sys.stderr)
        return 2
    if variant == "alternate":
        alternate(ModulePaths)
    if variant in ("hooks", "forward"):
        ModulePaths._mark = lambda self, output, path: None
    if variant == "hooks":
        original = ModulePaths.__init__

        def silent(self, torch, tell):
            original(self, torch, lambda path: None)

        ModulePaths.__init__ = silent
    sys.argv = sys.argv[2:]
    runpy.run_path(program, run_name="__main__")
    return 0


if __name__ == "__main__":
    sys.exit(main())
