"""The companion's start: what to record in this process, decided from `memfloor run`'s settings."""

import atexit
import os
import types
from typing import Optional

from memfloor import import_watch

MS_PER_S = 1000.0
DEFAULT_FLUSH_MS = 1000

_recorder: Optional[object] = None  # the one recorder of this process (a TorchBlocks)


def _period_s() -> float:
    text = os.environ.get("MEMFLOOR_FLUSH_MS", "")
    ms = int(text) if text.isdigit() and int(text) > 0 else DEFAULT_FLUSH_MS
    return ms / MS_PER_S


def _on_torch(torch: types.ModuleType) -> None:
    global _recorder
    from memfloor.torch_blocks import TorchBlocks

    recorder = TorchBlocks(torch, _period_s())
    if recorder.start():
        _recorder = recorder
        atexit.register(recorder.stop)


def start() -> bool:
    """Starts the companion when the process runs under `memfloor run` (the hook's settings are in
    the environment) and MEMFLOOR_TORCH_BLOCKS is not 0. True if it is watching for torch."""
    if not os.environ.get("MEMFLOOR_OUTPUT_DIR") or not os.environ.get("CUDA_INJECTION64_PATH"):
        return False
    if os.environ.get("MEMFLOOR_TORCH_BLOCKS", "1") == "0":
        return False
    import_watch.when_imported("torch", _on_torch)
    return True


def recorder() -> Optional[object]:
    return _recorder
