"""module_paths: each thread's module path from global forward hooks, told to the allocator's
record in forward and, through the autograd nodes of the modules' outputs, in backward."""

import io
import threading
import types
import unittest
from unittest import mock

try:
    import torch
except ImportError:  # a Python without torch: those tests are skipped, visibly
    torch = None

from memfloor.block_log import module_of
from memfloor.module_paths import MODULE_FILE, ModulePaths, joined, module_frame, root_name


class NamingTest(unittest.TestCase):
    def test_wrappers_are_named_by_the_model_they_hold(self):
        Model = type("GPT2LMHeadModel", (), {})
        Compiled = type("OptimizedModule", (), {})
        compiled = Compiled()
        compiled._orig_mod = Model()
        self.assertEqual(root_name(Model()), "GPT2LMHeadModel")
        self.assertEqual(root_name(compiled), "GPT2LMHeadModel")
        self.assertEqual(root_name(type("DistributedDataParallel", (), {})()),
                         "DistributedDataParallel")  # one without its model keeps its name
        self.assertEqual(joined("GPT2LMHeadModel", "_orig_mod.transformer.h.3"),
                         "GPT2LMHeadModel.transformer.h.3")
        self.assertEqual(joined("Net", "_orig_mod"), "Net")
        self.assertEqual(joined("Net", ""), "Net")

    def test_a_module_frame_is_read_back_from_the_memory_history(self):
        self.assertEqual(module_frame("Net.fc"), (MODULE_FILE, "Net.fc", 0))
        self.assertEqual(module_of({"user_metadata": "module:Net.fc"}), (module_frame("Net.fc"),))
        for entry in ({}, {"user_metadata": ""}, {"user_metadata": "module:"},
                      {"user_metadata": "someone else's"}, {"user_metadata": 7}):
            self.assertEqual(module_of(entry), (), entry)


@unittest.skipIf(torch is None, "torch is not installed")
class TorchModulesTest(unittest.TestCase):
    """PyTorch's own global module hooks (Debian's 1.13 on CPU, or newer)."""

    def setUp(self):
        self.told = []
        self.paths = ModulePaths(torch, self.told.append)
        self.assertTrue(self.paths.install())
        self.addCleanup(self.paths.remove)

    def test_forward_tells_each_module_path_and_returns_to_its_parents(self):
        class Block(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.attn = torch.nn.Linear(4, 4)
                self.mlp = torch.nn.Sequential(torch.nn.Linear(4, 4), torch.nn.ReLU())

            def forward(self, x):
                return self.mlp(self.attn(x))

        class Net(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.h = torch.nn.ModuleList([Block(), Block()])

            def forward(self, x):
                for block in self.h:
                    x = block(x)
                return x

        net = Net()
        with torch.no_grad():
            result = net(torch.ones(2, 4))
        self.assertEqual(result.shape, (2, 4))  # the result passes through
        self.assertEqual(self.told, [
            "Net", "Net.h.0", "Net.h.0.attn", "Net.h.0", "Net.h.0.mlp", "Net.h.0.mlp.0",
            "Net.h.0.mlp", "Net.h.0.mlp.1", "Net.h.0.mlp", "Net.h.0", "Net",
            "Net.h.1", "Net.h.1.attn", "Net.h.1", "Net.h.1.mlp", "Net.h.1.mlp.0", "Net.h.1.mlp",
            "Net.h.1.mlp.1", "Net.h.1.mlp", "Net.h.1", "Net", ""])
        self.told.clear()
        with torch.no_grad():
            net.h[1].attn(torch.ones(2, 4))  # an inner module called alone is a root of its own
        self.assertEqual(self.told, ["Net.h.1.attn", ""])

    def test_a_child_added_after_naming_is_named_by_its_parent(self):
        net = torch.nn.Sequential(torch.nn.Linear(2, 2))
        with torch.no_grad():
            net(torch.ones(1, 2))
            net.add_module("late", torch.nn.ReLU())
            net(torch.ones(1, 2))
        self.assertIn("Sequential.late", self.told)

        class Caller(torch.nn.Module):  # calls a module it does not hold
            def __init__(self, other):
                super().__init__()
                self.__dict__["other"] = other

            def forward(self, x):
                return self.other(x)

        self.told.clear()
        with torch.no_grad():
            Caller(torch.nn.Tanh())(torch.ones(1))
        self.assertEqual(self.told, ["Caller", "Caller.(Tanh)", "Caller", ""])

    def test_a_forward_that_raises_leaves_no_path_behind(self):
        if not self.paths.always_called:
            self.skipTest(f"PyTorch {torch.__version__} calls no forward hook when forward raises")
        class Broken(torch.nn.Module):
            def forward(self, x):
                raise ValueError("bad input")

        class Outer(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.broken = Broken()
                self.fine = torch.nn.Identity()

            def forward(self, x):
                try:
                    self.broken(x)
                except ValueError:
                    pass
                return self.fine(x)

        outer = Outer()
        with self.assertRaisesRegex(ValueError, "bad input"):
            outer.broken(torch.ones(1))
        outer(torch.ones(1))
        self.assertEqual(self.told[-3:], ["Outer.fine", "Outer", ""])
        self.assertEqual(self.paths._stack(), [])

    def test_backward_tells_the_module_whose_node_runs(self):
        net = torch.nn.Sequential(torch.nn.Linear(3, 3), torch.nn.Tanh(), torch.nn.Linear(3, 1))
        loss = net(torch.ones(2, 3)).sum()
        self.paths.clear_at(loss)  # the loss is no module's output: backward begins unnamed
        self.told.clear()
        loss.backward()
        # The Sequential returns its last child's node, marked by that child already.
        self.assertEqual(self.told, ["", "Sequential.2", "Sequential.1", "Sequential.0"])
        self.assertIsNotNone(net[0].weight.grad)

    def test_threads_keep_their_own_paths(self):
        nets = [torch.nn.Linear(2, 2), torch.nn.Tanh()]
        barrier = threading.Barrier(2)
        stacks = []

        def forward(net):
            barrier.wait()
            with torch.no_grad():
                net(torch.ones(1, 2))
            stacks.append(self.paths._stack())

        threads = [threading.Thread(target=forward, args=(net,)) for net in nets]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        self.assertEqual(stacks, [[], []])
        self.assertEqual(sorted(self.told), ["", "", "Linear", "Tanh"])

    def test_a_failing_teller_turns_the_hooks_off_once_and_the_model_runs_on(self):
        def tell(path):
            raise OSError("hook gone")

        self.paths.remove()
        paths = ModulePaths(torch, tell)
        paths.install()
        net = torch.nn.Linear(2, 1)
        with mock.patch("sys.stderr", new_callable=io.StringIO) as stderr:
            with torch.no_grad():
                first = net(torch.ones(1, 2))
                second = net(torch.ones(1, 2))
        self.assertTrue(torch.equal(first, second))
        self.assertEqual(stderr.getvalue().count("module paths are off"), 1)
        self.assertEqual(paths._handles, [])

    def test_a_traced_forward_tells_nothing(self):
        self.paths._compiling = lambda: True
        with torch.no_grad():
            torch.nn.Linear(2, 2)(torch.ones(1, 2))
        self.assertEqual(self.told, [])


if __name__ == "__main__":
    unittest.main()
