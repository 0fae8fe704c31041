#!/usr/bin/env python3
"""A plain training loop over a torch.compile'd model (encoder_loop.py: a small pre-norm
transformer from torch.nn), no NVTX range. After zero_grad(set_to_none=True) the loop logs the
program's own memory_allocated() to --log. Unless --fixed, the loop keeps the last output, with its
graph, on `state.last` (a module-level object, replaced each step), which the census should name.
"""
import argparse
import sys

import encoder_loop


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    encoder_loop.add_arguments(p)
    args = p.parse_args()
    log = encoder_loop.run(args, "compile", compiled=True)
    log.measure_planted(encoder_loop.release_planted)
    log.write(args.log, steps=args.steps)
    return 0


if __name__ == "__main__":
    sys.exit(main())
