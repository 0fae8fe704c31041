"""TorchBlocks: enabling PyTorch's history at CUDA's initialization, and draining it."""

import sys
import types
import unittest
from unittest import mock

from memfloor import torch_blocks
from memfloor.hook_api import BLOCK_ALLOC


class FakeMemory:
    """torch.cuda.memory as far as the recorder uses it."""

    def __init__(self, snapshots, backend="native"):
        self.snapshots = list(snapshots)
        self.backend = backend
        self.history_calls = []

    def get_allocator_backend(self):
        return self.backend

    def _record_memory_history(self, enabled="all", context="all", stacks="all",
                               max_entries=0, clear_history=False):
        self.history_calls.append((enabled, context, stacks, clear_history))

    def _snapshot(self):
        return self.snapshots.pop(0)


def fake_torch(memory, step_hooks=None):
    queued = []
    cuda = types.SimpleNamespace(memory=memory, _lazy_call=queued.append)
    torch = types.SimpleNamespace(cuda=cuda, __version__="test")
    if step_hooks is not None:  # PyTorch 2.x: torch.optim.optimizer's global step hooks
        module = types.ModuleType("memfloor_fake_optimizer")
        module.register_optimizer_step_post_hook = step_hooks.append
        sys.modules[module.__name__] = module  # torch.optim itself lacks `optimizer`
        base = type("Optimizer", (), {"__module__": module.__name__})
        torch.optim = types.SimpleNamespace(Optimizer=base)
    return torch, queued


class FakeHook:
    def __init__(self):
        self.stacks, self.events = [], []

    def python_stack(self, frames):
        self.stacks.append(frames)
        return len(self.stacks)

    def blocks(self, events):
        self.events.extend(events)
        return len(events)


SNAPSHOT = {"device_traces": [[{"action": "alloc", "addr": 0x100, "size": 512, "stream": 0,
                                "time_us": 3, "frames": [{"filename": "t.py", "name": "f",
                                                          "line": 2}]}]],
            "segments": [{"device": 0, "stream": 0, "blocks": [
                {"address": 0x100, "size": 512, "state": "active_allocated", "frames": []}]}]}


class TorchBlocksTest(unittest.TestCase):
    def test_history_is_enabled_by_cuda_initialization_and_drained_into_the_hook(self):
        memory = FakeMemory([SNAPSHOT, {"device_traces": [[]], "segments": []}])
        torch, queued = fake_torch(memory)
        recorder = torch_blocks.TorchBlocks(torch, period_s=3600)
        self.assertTrue(recorder.start())
        self.assertEqual(memory.history_calls, [])  # nothing until CUDA initializes
        hook = FakeHook()
        with mock.patch.object(torch_blocks, "find_hook", return_value=hook):
            queued[0]()  # PyTorch's lazy initialization
            self.assertEqual(memory.history_calls, [("all", "alloc", "python", False)])
            recorder.drain()
            self.assertEqual(hook.events, [(3000, 0x100, 512, 0, 0, 1, BLOCK_ALLOC)])
            self.assertEqual(hook.stacks, [(("t.py", "f", 2),)])
            self.assertEqual(memory.history_calls[-1], ("all", "alloc", "python", True))
            recorder.stop()  # the last drain: the block freed, reconciled with the empty state
        self.assertEqual(len(hook.events), 2)

    def test_the_thread_waits_for_the_program_to_import_what_a_snapshot_imports(self):
        memory = FakeMemory([SNAPSHOT] * 50)
        torch, queued = fake_torch(memory)
        recorder = torch_blocks.TorchBlocks(torch, period_s=0.01)
        recorder.start()
        hook = FakeHook()
        with mock.patch.object(torch_blocks, "find_hook", return_value=hook), \
                mock.patch.object(torch_blocks, "SNAPSHOT_IMPORTS", ("memfloor_not_imported",)):
            queued[0]()
            recorder._stop.wait(0.2)
            self.assertEqual(len(memory.snapshots), 50)  # the thread took none
            recorder.stop()  # the last drain does
        self.assertEqual(len(memory.snapshots), 49)
        self.assertEqual(len(hook.events), 1)

    def test_drains_follow_optimizer_steps_the_first_ones_and_then_once_a_period(self):
        memory = FakeMemory([SNAPSHOT] + [{"device_traces": [[]], "segments": SNAPSHOT["segments"]}]
                            * 20)
        hooks = []
        torch, queued = fake_torch(memory, hooks)
        recorder = torch_blocks.TorchBlocks(torch, period_s=3600)
        recorder.start()
        hook = FakeHook()
        with mock.patch.object(torch_blocks, "find_hook", return_value=hook), \
                mock.patch.object(torch_blocks, "SNAPSHOT_IMPORTS", ("unittest",)):
            queued[0]()
            self.assertEqual(len(hooks), 1)
            for _ in range(5):
                hooks[0](object(), (), {})  # five optimizer steps within one period
            self.assertEqual(len(memory.snapshots), 21 - torch_blocks.FIRST_STEPS_DRAINED)
            recorder._last_drain -= 3600  # a period later
            hooks[0](object(), (), {})
            self.assertEqual(len(memory.snapshots), 20 - torch_blocks.FIRST_STEPS_DRAINED)
            with mock.patch.object(torch_blocks, "SNAPSHOT_IMPORTS", ("memfloor_not_imported",)):
                recorder._last_drain -= 3600
                hooks[0](object(), (), {})  # not before the program imported what it imports
            self.assertEqual(len(memory.snapshots), 20 - torch_blocks.FIRST_STEPS_DRAINED)
            recorder.stop()
        self.assertEqual(hook.events, [(3000, 0x100, 512, 0, 0, 1, BLOCK_ALLOC)])

    def test_a_module_being_imported_is_not_imported_yet(self):
        self.assertTrue(torch_blocks._imported("unittest"))
        self.assertFalse(torch_blocks._imported("memfloor_not_imported"))
        module = types.ModuleType("memfloor_half")
        module.__spec__ = types.SimpleNamespace(_initializing=True)
        with mock.patch.dict("sys.modules", {"memfloor_half": module}):
            self.assertFalse(torch_blocks._imported("memfloor_half"))

    def test_the_async_backend_is_left_to_cupti(self):
        memory = FakeMemory([], backend="cudaMallocAsync")
        torch, queued = fake_torch(memory)
        recorder = torch_blocks.TorchBlocks(torch, period_s=3600)
        self.assertTrue(recorder.start())
        queued[0]()
        self.assertEqual(memory.history_calls, [])
        recorder.drain()  # nothing to do, nothing fails

    def test_without_a_loaded_hook_the_history_keeps_its_entries(self):
        memory = FakeMemory([SNAPSHOT])
        torch, queued = fake_torch(memory)
        recorder = torch_blocks.TorchBlocks(torch, period_s=3600)
        recorder.start()
        with mock.patch.object(torch_blocks, "find_hook", return_value=None):
            queued[0]()
            recorder.drain()
        self.assertEqual(len(memory.snapshots), 1)  # not taken, not cleared
        recorder.stop()

    def test_the_block_model_follows_the_allocators_configuration(self):
        model = torch_blocks.free_blocks_model
        self.assertIsNotNone(model({}))
        self.assertFalse(model({})._split_always)
        self.assertTrue(model({"PYTORCH_CUDA_ALLOC_CONF": "expandable_segments:True"})._split_always)
        self.assertEqual(model({"PYTORCH_CUDA_ALLOC_CONF": "max_split_size_mb:128"})._max_split,
                         128 << 20)
        self.assertIsNone(model({"PYTORCH_CUDA_ALLOC_CONF": "roundup_power2_divisions:4"}))

    def test_an_old_pytorch_is_refused_with_a_message(self):
        class OldMemory(FakeMemory):
            def _record_memory_history(self, enabled="all", context="all", stacks="all",
                                       max_entries=0):
                pass

        torch, queued = fake_torch(OldMemory([]))
        with mock.patch("sys.stderr") as stderr:
            self.assertFalse(torch_blocks.TorchBlocks(torch, period_s=1).start())
        self.assertEqual(queued, [])
        self.assertTrue(stderr.write.called)

    def test_real_torch_on_cpu_is_left_unchanged(self):
        try:
            import torch
        except ImportError:
            self.skipTest("no torch")
        recorder = torch_blocks.TorchBlocks(torch, period_s=3600)
        with mock.patch("sys.stderr"):
            recorder.start()  # True or False by version; CUDA never initializes here
        self.assertEqual(torch.zeros(3).sum().item(), 0.0)
        recorder.drain()


if __name__ == "__main__":
    unittest.main()
