"""training_steps: step records from optimizer steps and first forwards, under several optimizers,
gradient accumulation, evaluation, torch.compile and threads; the idle moments it tells its
listeners; failures that turn it off without reaching the program."""

import io
import itertools
import sys
import threading
import types
import unittest
from unittest import mock

try:
    import torch
except ImportError:  # a Python without torch: those tests are skipped, visibly
    torch = None

from memfloor import hook_api, training_steps
from memfloor.training_steps import TrainingSteps

BEGIN, END = hook_api.STEP_BEGIN, hook_api.STEP_END


class FakeHook:
    has_step = True

    def __init__(self):
        self.records = []

    def step(self, phase, step, optimizer_steps, unix_ns):
        self.records.append(("begin" if phase == BEGIN else "end", step, optimizer_steps,
                             unix_ns))
        return 1


class Handle:
    def __init__(self, hooks, hook):
        self._hooks, self._hook = hooks, hook

    def remove(self):
        if self._hook in self._hooks:
            self._hooks.remove(self._hook)


class FakeTorch:
    """A torch with PyTorch 2's global optimizer step hook, global module forward pre-hooks, grad
    mode, torch.compiler.is_compiling and a CUDA that initializes when told to."""

    def __init__(self, step_hook=True):
        self.step_hooks, self.pre_hooks, self.queued = [], [], []
        self.grad, self.compiling = True, False
        module = types.ModuleType("memfloor_fake_training_optimizer")
        if step_hook:
            module.register_optimizer_step_post_hook = self.step_hooks.append
        sys.modules[module.__name__] = module
        self.optim = types.SimpleNamespace(
            Optimizer=type("Optimizer", (), {"__module__": module.__name__}))
        self.nn = types.SimpleNamespace(modules=types.SimpleNamespace(
            module=types.SimpleNamespace(register_module_forward_pre_hook=self._register)))
        self.cuda = types.SimpleNamespace(_lazy_call=self.queued.append)
        self.compiler = types.SimpleNamespace(is_compiling=lambda: self.compiling)
        self.is_grad_enabled = lambda: self.grad
        self.__version__ = "2.x"

    def _register(self, hook):
        self.pre_hooks.append(hook)
        return Handle(self.pre_hooks, hook)

    def init_cuda(self):
        for call in self.queued:
            call()

    def forward(self, modules=3):
        """A model's forward: its module calls, the outermost first."""
        for _ in range(modules):
            for hook in list(self.pre_hooks):
                hook(object(), ())

    def optimizer_step(self):
        for hook in list(self.step_hooks):
            hook(object(), (), {})


def clock():
    ticks = itertools.count(1000, 1000)
    return lambda: next(ticks)


def started(fake=None, hook=None, **kwargs):
    fake = fake if fake is not None else FakeTorch()
    hook = hook if hook is not None else FakeHook()
    steps = TrainingSteps(fake, find=lambda: hook, clock=clock(), **kwargs)
    with mock.patch("atexit.register"), mock.patch("os.register_at_fork"):
        assert steps.start()
        fake.init_cuda()
    return fake, hook, steps


class TrainingStepsTest(unittest.TestCase):
    def test_the_hooks_are_registered_when_cuda_initializes(self):
        fake = FakeTorch()
        steps = TrainingSteps(fake, find=FakeHook)
        with mock.patch("atexit.register") as at_exit, mock.patch("os.register_at_fork"):
            self.assertTrue(steps.start())
            self.assertEqual((fake.step_hooks, fake.pre_hooks), ([], []))
            fake.init_cuda()
        self.assertEqual((len(fake.step_hooks), len(fake.pre_hooks)), (1, 1))
        at_exit.assert_called_once_with(steps.finish)

    def test_pytorch_1_has_no_step_clock_and_says_so_when_verbose(self):
        for verbose, lines in ((False, 0), (True, 1)):
            fake = FakeTorch(step_hook=False)
            with mock.patch("sys.stderr", new_callable=io.StringIO) as stderr:
                self.assertFalse(TrainingSteps(fake, verbose=verbose).start())
            self.assertEqual(len(stderr.getvalue().splitlines()), lines)
            self.assertEqual(fake.queued, [])

    def test_a_step_runs_from_its_first_forward_to_its_last_optimizer_step(self):
        fake, hook, steps = started()
        for _ in range(3):
            fake.forward()  # a begin at t=1000, 3000, 5000
            fake.optimizer_step()  # an end at t=2000, 4000, 6000
            self.assertEqual(fake.pre_hooks, [steps._pre_forward])  # back for the next forward
        steps.finish()
        self.assertEqual(hook.records, [
            ("begin", 1, 0, 1000), ("end", 1, 1, 2000),
            ("begin", 2, 0, 3000), ("end", 2, 1, 4000),
            ("begin", 3, 0, 5000), ("end", 3, 1, 6000)])
        self.assertEqual(fake.pre_hooks, [])

    def test_several_optimizers_and_accumulated_micro_batches_make_one_step(self):
        fake, hook, _ = started()
        fake.forward()
        self.assertEqual(fake.pre_hooks, [])  # no module call pays for the hook until a step
        fake.forward()  # a second micro-batch: not a new step
        fake.optimizer_step()
        fake.optimizer_step()  # a second optimizer
        fake.forward()
        self.assertEqual(hook.records, [("begin", 1, 0, 1000), ("end", 1, 2, 3000)])

    def test_forwards_without_gradients_are_the_idle_window(self):
        fake, hook, steps = started()
        idle = []
        steps.idle.append(idle.append)
        fake.forward()
        fake.optimizer_step()
        fake.grad = False
        fake.forward(modules=50)  # an evaluation
        self.assertEqual((idle, len(hook.records)), ([], 1))
        fake.grad = True
        fake.forward()
        self.assertEqual(idle, [1])
        self.assertEqual(hook.records[1:], [("end", 1, 1, 2000)])  # step 2's begin: at its step

    def test_listeners_hear_each_optimizer_step_and_each_idle_moment_before_the_forward(self):
        fake, hook, steps = started()
        heard = []
        steps.stepped.append(lambda step: heard.append(("stepped", step)))
        steps.idle.append(lambda step: heard.append(("idle", step, len(hook.records))))
        fake.forward()
        fake.optimizer_step()
        fake.optimizer_step()
        fake.forward()
        steps.finish()
        steps.finish()  # once
        # The end is written before the window is used; step 2 took no optimizer step: no end.
        self.assertEqual(heard, [("stepped", 1), ("stepped", 1), ("idle", 1, 2)])

    def test_a_process_that_never_steps_writes_nothing_and_stops_watching(self):
        fake, hook, steps = started()
        fake.grad = False
        fake.forward(modules=training_steps.MAX_CALLS_BEFORE_TRAINING + 1)
        self.assertEqual(fake.pre_hooks, [])
        fake.grad = True
        fake.forward()
        steps.finish()
        self.assertEqual(hook.records, [])

    def test_a_step_whose_first_forward_was_not_seen_is_counted_but_not_written(self):
        fake, hook, steps = started()
        fake.grad = False
        fake.forward(modules=training_steps.MAX_CALLS_BEFORE_TRAINING + 1)
        fake.grad = True
        fake.forward()  # not seen
        fake.optimizer_step()  # step 1, without a begin
        fake.forward()
        fake.optimizer_step()
        steps.finish()
        self.assertEqual([r[:3] for r in hook.records], [("begin", 2, 0), ("end", 2, 1)])

    def test_a_forward_that_dynamo_traces_is_not_a_first_forward(self):
        fake, hook, _ = started()
        fake.compiling = True
        fake.forward()
        self.assertEqual(len(fake.pre_hooks), 1)
        fake.compiling = False
        fake.forward()
        fake.optimizer_step()
        self.assertEqual(hook.records, [("begin", 1, 0, 1000)])

    def test_the_compiled_module_warning_of_our_own_hook_is_not_shown(self):
        started()
        with mock.patch("sys.stderr", new_callable=io.StringIO) as stderr:
            import warnings
            warnings.warn("Using `torch.compile(module)` when there are global hooks on modules",
                          UserWarning)
        self.assertEqual(stderr.getvalue(), "")

    def test_two_threads_forwarding_at_once_begin_one_step(self):
        fake, hook, steps = started()
        barrier = threading.Barrier(4)

        def forward():
            barrier.wait()
            fake.forward()

        threads = [threading.Thread(target=forward) for _ in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        fake.optimizer_step()
        self.assertEqual(steps.step, 1)
        self.assertEqual([r[:2] for r in hook.records], [("begin", 1)])

    def test_a_failing_hook_is_said_once_and_the_program_goes_on(self):
        class BrokenHook(FakeHook):
            def step(self, *args):
                raise OSError("hook gone")

        fake = FakeTorch()
        with mock.patch("sys.stderr", new_callable=io.StringIO) as stderr:
            _, _, steps = started(fake, BrokenHook())
            fake.forward()
            fake.optimizer_step()  # does not raise
            fake.forward()
            fake.optimizer_step()
        self.assertFalse(steps.on)
        self.assertEqual(fake.pre_hooks, [])
        lines = stderr.getvalue().splitlines()
        self.assertEqual(len(lines), 1)
        self.assertIn("training steps failed: OSError('hook gone')", lines[0])

    def test_an_older_hook_or_none_records_nothing_and_steps_go_on(self):
        class OldHook(FakeHook):
            has_step = False

        for hook in (OldHook(), None):
            fake = FakeTorch()
            steps = TrainingSteps(fake, find=lambda h=hook: h, clock=clock())
            heard = []
            steps.stepped.append(heard.append)
            with mock.patch("atexit.register"), mock.patch("os.register_at_fork"):
                steps.start()
                fake.init_cuda()
            fake.forward()
            fake.optimizer_step()
            fake.forward()
            fake.optimizer_step()
            self.assertEqual(heard, [1, 2])
            self.assertTrue(steps.on)

    def test_without_forward_hooks_the_window_is_right_after_the_step(self):
        fake = FakeTorch()
        fake.nn = types.SimpleNamespace()
        _, hook, steps = started(fake)
        idle = []
        steps.idle.append(idle.append)
        fake.optimizer_step()
        fake.optimizer_step()
        self.assertEqual(idle, [1, 2])  # each optimizer step is a training step of its own
        self.assertEqual(hook.records, [])


@unittest.skipIf(torch is None, "torch is not installed")
class RealModulesTest(unittest.TestCase):
    """PyTorch's own global forward pre-hook (this torch may lack the optimizer step hook: the
    steps are told by hand)."""

    def test_the_first_forward_with_gradients_of_a_real_model(self):
        hook = FakeHook()
        steps = TrainingSteps(torch, find=lambda: hook, clock=clock())
        steps._arm()
        model = torch.nn.Sequential(torch.nn.Linear(4, 4), torch.nn.ReLU(), torch.nn.Linear(4, 1))
        with torch.no_grad():
            model(torch.zeros(2, 4))
        self.assertEqual(steps.step, 0)
        loss = model(torch.zeros(2, 4)).sum()
        self.assertEqual(steps.step, 1)
        self.assertIsNone(steps._handle)  # removed: the next module calls run without it
        loss.backward()
        steps.optimizer_stepped()
        model(torch.zeros(2, 4))
        steps.finish()
        self.assertEqual([r[:3] for r in hook.records], [("begin", 1, 0), ("end", 1, 1)])


if __name__ == "__main__":
    unittest.main()
