"""take_census on CPU tensors: planted holders, autograd graphs, optimizer state, views, objects
that raise, and no reference kept."""

import gc
import sys
import unittest
import weakref

try:
    import torch
except ImportError:  # a Python without torch: the tests are skipped, visibly
    torch = None

from memfloor.census import take_census

N = 1 << 16  # elements of a "large" tensor: 256 KiB of float32
LARGE = 4 * N
MODULE = sys.modules[__name__]


def census(**kwargs):
    return take_census(torch, device_type="cpu", **kwargs)


def ending(result, suffix):
    """The entries whose path ends with `suffix`."""
    return [entry for entry in result.storages if entry.path.endswith(suffix)]


def closure_over(buffer):
    def step():
        return buffer

    return step


if torch is not None:
    class Model(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = torch.nn.Linear(8, 4)
            self.layers = torch.nn.ModuleList([torch.nn.Linear(4, 4), torch.nn.Linear(4, 2)])

        def forward(self, x):
            x = self.lin(x)
            for layer in self.layers:
                x = layer(x)
            return x

    class Scale(torch.autograd.Function):
        """A custom Function that saves its input and keeps a tensor on its context."""

        @staticmethod
        def forward(ctx, x, w):
            ctx.save_for_backward(x)
            ctx.scale = w * 2
            return (x * w).sum()

        @staticmethod
        def backward(ctx, grad):
            (x,) = ctx.saved_tensors
            return grad * ctx.scale, grad * x


class Key:
    """A dict key that is an object: a dict keyed by it is named by the key's own path."""


class Loud(list):
    """A list whose own iteration would raise: the census iterates it as a list."""

    def __iter__(self):
        raise RuntimeError("iterated through the subclass")


class Raising:
    """Everything read through the class raises; the instance dict still holds a tensor."""

    def __init__(self, tensor):
        self.tensor = tensor

    def __getattr__(self, name):
        raise RuntimeError(f"no {name}")

    @property
    def boom(self):
        raise RuntimeError("a property with side effects")


class RaisingEverywhere(Raising):
    def __getattribute__(self, name):
        raise RuntimeError(f"no {name}")


@unittest.skipIf(torch is None, "torch is not installed")
class CensusTest(unittest.TestCase):
    def tearDown(self):
        for name in ("planted", "history", "CACHE", "step_fn", "model", "alias"):
            MODULE.__dict__.pop(name, None)

    def test_a_module_attribute_is_named(self):
        MODULE.model = Model()
        MODULE.model.kept = torch.zeros(N)
        [entry] = ending(census(), "test_census.model.kept")
        self.assertEqual((entry.nbytes, entry.via_graph, entry.device), (LARGE, [], "cpu"))

    def test_parameters_and_grads_are_named(self):
        MODULE.model = Model()
        MODULE.model(torch.randn(3, 8)).sum().backward()
        result = census()
        for suffix in (".model.lin.weight", ".model.lin.bias", ".model.layers[1].weight",
                       ".model.lin.weight.grad", ".model.layers[0].bias.grad"):
            self.assertEqual(len(ending(result, suffix)), 1, suffix)

    def test_graph_of_a_small_tensor_is_attributed_to_its_holder(self):
        MODULE.model = Model()
        big = torch.randn(N, requires_grad=True)
        weight = torch.randn(N)
        MODULE.model.kept = (big * weight).relu().sum()  # a scalar whose graph saves 3 big ones
        del big, weight
        entries = ending(census(), "test_census.model.kept")
        direct = [entry for entry in entries if not entry.via_graph]
        via_graph = [entry for entry in entries if entry.via_graph]
        self.assertEqual([entry.nbytes for entry in direct], [4])
        self.assertEqual(sorted(entry.nbytes for entry in via_graph), [LARGE] * 3)
        names = {name for entry in via_graph for name in entry.via_graph}
        self.assertTrue({"SumBackward0", "ReluBackward0", "MulBackward0"} <= names, names)

    def test_a_custom_function_context_is_walked(self):
        x = torch.randn(N, requires_grad=True)
        MODULE.planted = Scale.apply(x, torch.randn(N))
        del x
        graph = [entry for entry in ending(census(), ".planted") if entry.via_graph]
        self.assertEqual(sorted(entry.nbytes for entry in graph), [LARGE, LARGE])
        self.assertTrue(all("ScaleBackward" in entry.via_graph for entry in graph))

    def test_a_checkpoint_context_is_walked(self):
        from torch.utils import checkpoint

        x = torch.randn(N, requires_grad=True)
        MODULE.planted = checkpoint.checkpoint(torch.relu, x, use_reentrant=True).sum()
        del x
        graph = [entry for entry in ending(census(), ".planted") if entry.nbytes == LARGE]
        self.assertEqual(len(graph), 1)
        self.assertIn("CheckpointFunctionBackward", graph[0].via_graph)

    def test_globals_containers_and_closures(self):
        MODULE.history = [torch.zeros(4) for _ in range(5)]
        MODULE.CACHE = {"k": torch.zeros(N)}
        MODULE.step_fn = closure_over(torch.zeros(2 * N))
        result = census()
        self.assertEqual(len(ending(result, "test_census.history[3]")), 1)
        self.assertEqual(ending(result, "test_census.CACHE['k']")[0].nbytes, LARGE)
        self.assertEqual(ending(result, "test_census.step_fn.<closure>.buffer")[0].nbytes,
                         2 * LARGE)

    def test_optimizer_state_is_keyed_by_its_parameter(self):
        MODULE.model = model = Model()
        optimizer = torch.optim.AdamW(model.parameters())
        model(torch.randn(3, 8)).sum().backward()
        optimizer.step()
        result = census()
        [exp_avg] = ending(result, ".optimizer.state[model.lin.weight]['exp_avg']")
        self.assertEqual(exp_avg.nbytes, model.lin.weight.numel() * 4)
        self.assertEqual(len(ending(result, "['exp_avg_sq']")), len(list(model.parameters())))
        # A parameter is held by the model and by the optimizer.
        self.assertTrue(ending(result, ".model.lin.weight")[0].shared)

    def test_roles_come_from_the_edge_that_named_the_storage(self):
        MODULE.model = model = Model()
        model.register_buffer("running", torch.zeros(N))
        model.kept = torch.zeros(2 * N)
        optimizer = torch.optim.AdamW(model.parameters())
        model(torch.randn(3, 8)).sum().backward()
        optimizer.step()
        result = census()
        roles = {suffix: [entry.role for entry in ending(result, suffix)]
                 for suffix in (".model.lin.weight", ".model.layers[1].bias", ".model.running",
                                ".model.kept", ".model.lin.weight.grad",
                                ".optimizer.state[model.lin.weight]['exp_avg']",
                                ".optimizer.state[model.lin.weight]['step']")}
        self.assertEqual(roles, {
            ".model.lin.weight": ["parameter"], ".model.layers[1].bias": ["parameter"],
            ".model.running": ["buffer"], ".model.kept": ["other"],
            ".model.lin.weight.grad": ["gradient"],
            ".optimizer.state[model.lin.weight]['exp_avg']": ["optimizer_state"],
            ".optimizer.state[model.lin.weight]['step']": ["optimizer_state"]})
        del optimizer

    def test_a_tensor_named_like_a_parameter_elsewhere_is_no_parameter(self):
        MODULE.model = Model()
        object.__setattr__(MODULE.model, "twin", torch.zeros(N))  # an attribute, not a parameter
        MODULE.planted = {"weight": torch.zeros(2 * N), "grad": torch.zeros(3 * N)}
        result = census()
        self.assertEqual([entry.role for entry in ending(result, ".model.twin")], ["other"])
        self.assertEqual([entry.role for entry in ending(result, ".planted['weight']")], ["other"])
        self.assertEqual([entry.role for entry in ending(result, ".planted['grad']")], ["other"])

    def test_parameters_are_named_by_their_model_before_their_optimizer(self):
        deep = torch.nn.Sequential(torch.nn.Sequential(torch.nn.Sequential(Model())))
        MODULE.planted = [torch.optim.SGD(deep.parameters(), lr=0.1, momentum=0.9), deep]
        deep(torch.randn(3, 8)).sum().backward()
        MODULE.planted[0].step()
        del deep  # only the list holds them: the optimizer comes first in it, the model is deeper
        result = census()
        [weight] = ending(result, ".planted[1][0][0][0].lin.weight")
        self.assertEqual(weight.role, "parameter")
        [momentum] = ending(result, ".planted[0].state[planted[1][0][0][0].lin.weight]"
                                    "['momentum_buffer']")
        self.assertEqual(momentum.role, "optimizer_state")
        self.assertFalse([entry for entry in result.storages if "param_groups" in entry.path])

    def test_parameters_are_named_by_their_model_before_a_kept_graph(self):
        deep = torch.nn.Sequential(torch.nn.Sequential(torch.nn.Sequential(Model())))
        MODULE.planted = deep
        MODULE.alias = deep(torch.randn(3, 8))  # its graph reaches the last layer in fewer edges
        del deep
        result = census()
        [weight] = ending(result, ".planted[0][0][0].layers[1].weight")
        self.assertEqual((weight.via_graph, weight.role), ([], "parameter"))
        kept = ending(result, "test_census.alias")
        self.assertEqual([entry.nbytes for entry in kept if not entry.via_graph], [24])
        # What only the graph reaches (the activations it saved) is still the output's.
        self.assertTrue(any("AddmmBackward0" in entry.via_graph for entry in kept))
        self.assertFalse([entry for entry in kept if entry.address == weight.address])

    def test_containers_of_every_kind(self):
        import collections

        pair = collections.namedtuple("Pair", "left right")
        MODULE.CACHE = key = Key()
        holder = Key()
        holder.__dict__[7] = torch.zeros(5)  # an attribute whose name is no string
        MODULE.planted = {
            "set": {torch.zeros(2 * N)}, "deque": collections.deque([1, torch.zeros(3 * N)]),
            "pair": pair(1, torch.zeros(4 * N)), "loud": Loud([torch.zeros(5 * N)]),
            "ordered": collections.OrderedDict(k=torch.zeros(6 * N)),
            "keyed": {key: torch.zeros(7 * N)}, "holder": holder,
            "small": [[1, "a"], (2, None), (3, [torch.zeros(8 * N)])]}
        del key, holder
        sizes = {entry.path.split("test_census.", 1)[-1]: entry.nbytes
                 for entry in census().storages}
        self.assertEqual(sizes["planted['set'].<element>"], 2 * LARGE)
        self.assertEqual(sizes["planted['deque'][1]"], 3 * LARGE)
        self.assertEqual(sizes["planted['pair'][1]"], 4 * LARGE)
        self.assertEqual(sizes["planted['loud'][0]"], 5 * LARGE)
        self.assertEqual(sizes["planted['ordered']['k']"], 6 * LARGE)
        self.assertEqual(sizes["planted['keyed'][CACHE]"], 7 * LARGE)
        self.assertEqual(sizes["planted['holder'][7]"], 20)
        self.assertEqual(sizes["planted['small'][2][1][0]"], 8 * LARGE)

    def test_views_and_aliases_count_once(self):
        base = torch.zeros(N)
        MODULE.planted = [base, base[10:], base.view(4, -1), base]
        MODULE.alias = base
        del base
        result = census()
        matching = [entry for entry in result.storages if entry.nbytes == LARGE]
        self.assertEqual(len(matching), 1)
        self.assertEqual(matching[0].holders, 2)  # `planted` and `alias`

    def test_objects_that_raise_do_not_stop_the_census(self):
        MODULE.planted = [Raising(torch.zeros(N)), RaisingEverywhere(torch.zeros(2 * N)),
                          torch.zeros(3 * N)]
        result = census()
        self.assertEqual(ending(result, ".planted[0].tensor")[0].nbytes, LARGE)
        self.assertEqual(ending(result, ".planted[1].tensor")[0].nbytes, 2 * LARGE)
        self.assertEqual(ending(result, ".planted[2]")[0].nbytes, 3 * LARGE)

    def test_no_reference_is_kept(self):
        tensor = torch.zeros(N)
        MODULE.planted = Model()
        MODULE.planted.kept = (tensor * torch.randn(N, requires_grad=True)).sum()
        watched = [weakref.ref(tensor), weakref.ref(MODULE.planted.kept)]
        result = census()
        self.assertGreaterEqual(len(result.storages), 3)
        del tensor, MODULE.planted.kept
        self.assertEqual([ref() for ref in watched], [None, None])
        gc.collect()

    def test_the_fixed_variant_has_no_such_holder(self):
        MODULE.model = Model()
        MODULE.model.kept = (torch.randn(N, requires_grad=True) * 2).sum()
        leaky = census()
        MODULE.model.kept = None
        fixed = census()
        self.assertTrue(ending(leaky, ".model.kept"))
        self.assertEqual(ending(fixed, ".model.kept"), [])
        self.assertGreaterEqual(leaky.held_bytes - fixed.held_bytes, LARGE)

    def test_explicit_roots_and_the_device_filter(self):
        roots = [("state", {"x": torch.zeros(8)})]
        [entry] = census(roots=roots).storages
        self.assertEqual((entry.path, entry.nbytes, entry.holders), ("state.x", 32, 1))
        self.assertEqual(take_census(torch, "cuda", roots=roots).storages, [])
        self.assertEqual(census(roots=roots).not_seen_bytes(100), 68)

    def test_the_walk_is_bounded(self):
        result = census(roots=[("state", {"x": [[torch.zeros(8)]]})], max_depth=2)
        self.assertEqual(result.storages, [])
        self.assertFalse(census(roots=[("state", {"x": [Key(), Key(), Key()]})],
                                max_objects=2).complete)


if __name__ == "__main__":
    unittest.main()
