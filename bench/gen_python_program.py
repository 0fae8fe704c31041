"""Writes a generated Python program for bench/checker_python_speed.sh: classes of one tensor field
each, in files of a package, the shape that once made memfloor-check's cost grow with the square
of the program (issue 37).

    python3 bench/gen_python_program.py OUT_DIR MEGABYTES [--files N]

Each class holds one tensor (`self.<name> = torch.zeros(...)`), uses it in `forward` and `step`
(methods that every class defines, so each name has as many definers as there are classes), hands
it to a helper, and releases it in `release` (every fourth class keeps it). Classes subclass the
one before them in their file (chains of eight), so hierarchies, overrides and call edges grow with
the program. Its findings are MF004's: `forward` uses the field that `release` sets to None, with
no check. The output is deterministic.
"""

from __future__ import annotations

import argparse
import os
from typing import List

_FIELDS = ("weight", "buffer", "activation", "state", "grad_cache", "offload")

_CLASS = '''

class {name}({base}):
    """Block {i} of the generated program."""

    def __init__(self, dim: int) -> None:
        super().__init__(dim)
        self.{field} = torch.zeros(dim, {width})
        self.scale_{i} = {i}

    def forward(self, x):
        h = self.{field}.matmul(x)
        self.{field}.add_(h.mean())
        return self.combine(h, x)

    def step(self, x):
        out = self.forward(x)
        self.{field}.mul_(0.5)
        self.helper_{i}(out)
        {release_call}
        return out

    def helper_{i}(self, out):
        if self.{field} is not None:
            self.{field}.copy_(out[: self.{field}.shape[0]])

    def release(self):
        {release}

    def combine(self, h, x):
        return h + x * self.scale_{i}
'''

_HEAD = '''"""Generated module {index} of the speed benchmark's program (bench/gen_python_program.py)."""

import torch


class Base{index}:
    def __init__(self, dim: int) -> None:
        self.dim = dim

    def combine(self, h, x):
        return h + x
'''


def module_text(index: int, first: int, count: int) -> str:
    parts: List[str] = [_HEAD.format(index=index)]
    base = f"Base{index}"
    for i in range(first, first + count):
        name = f"Block{i}"
        field = f"{_FIELDS[i % len(_FIELDS)]}_tensor"
        keeps = i % 4 == 3
        parts.append(_CLASS.format(
            name=name, base=base, i=i, field=field, width=1 + i % 7,
            release_call="pass" if keeps else "self.release()",
            release="pass" if keeps else f"self.{field} = None"))
        base = name if i % 8 else f"Base{index}"  # chains of eight subclasses
    return "".join(parts)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out_dir")
    parser.add_argument("megabytes", type=float)
    parser.add_argument("--files", type=int, default=0,
                        help="number of modules (default: one per 250 KB)")
    args = parser.parse_args()
    target = int(args.megabytes * 1e6)
    per_class = len(module_text(0, 0, 1)) - len(_HEAD.format(index=0))
    classes = max(1, target // per_class)
    files = args.files or max(1, target // 250_000)
    package = os.path.join(args.out_dir, "genprog")
    os.makedirs(package, exist_ok=True)
    with open(os.path.join(package, "__init__.py"), "w", encoding="utf-8") as f:
        f.write('"""The speed benchmark\'s generated program."""\n')
    first = 0
    for index in range(files):
        count = classes // files + (1 if index < classes % files else 0)
        with open(os.path.join(package, f"mod{index:04d}.py"), "w", encoding="utf-8") as f:
            f.write(module_text(index, first, count))
        first += count
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
