"""BackwardCalls: who called backward, for what the autograd engine's threads allocate."""

import types
import unittest

from memfloor.backward_calls import BACKWARD_FRAME, BackwardCalls
from memfloor.block_log import BlockLog


def fake_torch(engine):
    return types.SimpleNamespace(autograd=types.SimpleNamespace(_engine_run_backward=engine))


class BackwardCallsTest(unittest.TestCase):
    def test_the_wrapper_passes_arguments_results_and_exceptions_through(self):
        seen = []

        def engine(*args, **kwargs):
            seen.append((args, kwargs))
            if kwargs.get("fail"):
                raise RuntimeError("element 0 of tensors does not require grad")
            return "grads"

        torch = fake_torch(engine)
        calls = BackwardCalls()
        self.assertTrue(calls.install(torch))
        self.assertFalse(calls.install(torch))  # once
        self.assertIs(torch.autograd._engine_run_backward.__wrapped__, engine)
        self.assertEqual(torch.autograd._engine_run_backward(1, 2, retain_graph=True), "grads")
        self.assertEqual(seen, [((1, 2), {"retain_graph": True})])
        with self.assertRaisesRegex(RuntimeError, "does not require grad"):
            torch.autograd._engine_run_backward(fail=True)

    def test_a_torch_without_the_engine_call_is_left_alone(self):
        self.assertFalse(BackwardCalls().install(types.SimpleNamespace(autograd=object())))
        self.assertFalse(BackwardCalls().install(types.SimpleNamespace()))

    def test_frames_while_running_are_the_callers_under_a_backward_frame(self):
        told = []
        calls = BackwardCalls(told.append)
        windows = []

        def engine():
            windows.append(calls.frames_at(time_now()))

        torch = fake_torch(engine)
        calls.install(torch)

        def train_step():
            torch.autograd._engine_run_backward()

        train_step()
        frames = windows[0]
        self.assertEqual(frames[0], BACKWARD_FRAME)
        self.assertEqual(frames[1][0], __file__)
        self.assertIn("train_step", frames[1][1])
        self.assertEqual(told, [frames, ()])
        self.assertEqual(calls.frames_at(time_now()), ())  # it returned
        calls.forget_before(time_now())
        self.assertEqual(calls._calls, [])

    def test_a_failing_hook_is_said_once_and_backward_runs_on(self):
        def tell(frames):
            raise OSError("hook gone")

        calls = BackwardCalls(tell)
        torch = fake_torch(lambda: 7)
        calls.install(torch)
        self.assertEqual(torch.autograd._engine_run_backward(), 7)
        self.assertEqual(torch.autograd._engine_run_backward(), 7)
        self.assertIsNone(calls._on_call)

    def test_blocks_without_frames_take_the_running_backwards(self):
        calls = BackwardCalls()
        frames = (BACKWARD_FRAME, ("train.py", "main", 30))
        calls._calls = [[1_000, 2_000, frames], [3_000, 0, (BACKWARD_FRAME,)]]
        stacks = []

        def stack_of(f):
            stacks.append(tuple(f))
            return len(stacks)

        snapshot = {"device_traces": [[
            {"action": "alloc", "addr": 0x10, "size": 512, "stream": 0, "time_us": 1,
             "frames": []},
            {"action": "alloc", "addr": 0x20, "size": 512, "stream": 0, "time_us": 2,
             "frames": [{"filename": "t.py", "name": "f", "line": 2}]},
            {"action": "alloc", "addr": 0x30, "size": 512, "stream": 0, "time_us": 2,
             "frames": []},
            {"action": "alloc", "addr": 0x40, "size": 512, "stream": 0, "time_us": 4,
             "frames": []}]], "segments": []}
        BlockLog().events(snapshot, 0, stack_of, calls.frames_at)
        self.assertEqual(stacks, [frames, (("t.py", "f", 2),), frames, (BACKWARD_FRAME,)])
        stacks.clear()
        BlockLog().events(snapshot, 0, stack_of)  # without: as the history says
        self.assertEqual(stacks[0], ())


def time_now():
    import time
    return time.time_ns()


if __name__ == "__main__":
    unittest.main()
