"""The program's own count, as the loops nobody changed for memfloor would log it: after each
training step (a callback, or the line after zero_grad), torch.cuda.memory_allocated() and
memory_reserved(); at the end, the bytes the planted holder kept, measured by releasing it."""
import json
from typing import Callable

import torch


class WindowLog:
    def __init__(self, program: str, planted_path: str):
        self.program = program
        self.planted_path = planted_path  # how the census should name the holder (its suffix)
        self.windows = []
        self.planted_bytes = 0

    def after_step(self, step: int) -> None:
        """Step `step` (counted from 1) has ended: its idle window."""
        self.windows.append({"step": step, "allocated": torch.cuda.memory_allocated(),
                             "reserved": torch.cuda.memory_reserved()})

    def measure_planted(self, release: Callable[[], None]) -> None:
        torch.cuda.synchronize()
        before = torch.cuda.memory_allocated()
        release()
        torch.cuda.synchronize()
        self.planted_bytes = before - torch.cuda.memory_allocated()

    def write(self, path: str, **extra) -> None:
        with open(path, "w") as f:
            json.dump({"program": self.program, "backend": torch.cuda.get_allocator_backend(),
                       "windows": self.windows, "planted_path": self.planted_path,
                       "planted_bytes": self.planted_bytes, **extra}, f)
