"""compiled_names.py: a graph's file named after what dynamo compiled, found on the loader's stack.

Inductor is not in Debian's PyTorch 1.13: its loader, dynamo's `_compile` and OptimizedModule's
call are stood in for here by functions compiled under the file names PyTorch 2 gives them, so
the stack the companion walks has the shape it has on the device (tests/gpu/pytorch/compile_loop.py
there checks the names end to end)."""

import io
import os
import tempfile
import types
import unittest
from contextlib import redirect_stderr

from memfloor.compiled_names import PROPERTY_PREFIX, CompiledNames, graph_kind

# Stand-ins, each under the path of the PyTorch file that holds the real one.
TORCH = "/venv/lib/python3.12/site-packages/torch/"
STANDINS = {
    TORCH + "_dynamo/convert_frame.py": """
def _compile(code, load):
    return load()
""",
    TORCH + "_dynamo/eval_frame.py": """
class OptimizedModule:
    def __init__(self, model):
        self._orig_mod = model

    def __call__(self, compile_it):
        return compile_it()
""",
    TORCH + "_dynamo/external_utils.py": """
def wrap_inline(fn):
    def inner(*args, **kwargs):
        return fn(*args, **kwargs)
    return inner
""",
}


def standins():
    found = {}
    for path, source in STANDINS.items():
        scope = {}
        exec(compile(source, path, "exec"), scope)  # noqa: S102: our own test source
        found.update({k: v for k, v in scope.items() if not k.startswith("__")})
    return types.SimpleNamespace(**found)


def step(x):  # the user's function torch.compile was given
    return x


class Net:  # the user's model
    pass


class CompiledNamesTest(unittest.TestCase):
    def setUp(self):
        self.told = []
        self.compile_id = "0/0"
        self.fake = standins()
        self.dir = tempfile.TemporaryDirectory()
        self.codecache = types.SimpleNamespace(PyCodeCache=type(
            "PyCodeCache", (), {"load_by_key_path": classmethod(self._load)}))
        self.names = CompiledNames(lambda key, name: self.told.append((key, name)),
                                   lambda: self.compile_id)
        self.assertTrue(self.names.install(self.codecache))

    def tearDown(self):
        self.dir.cleanup()

    @staticmethod
    def _load(cls, key, path, linemap=None, attrs=None):  # noqa: ARG004: the loader's signature
        module = types.ModuleType(key)
        if "kernel" not in key:
            module.call = lambda args: None
        return module

    def graph(self, name, first_line):
        path = os.path.join(self.dir.name, name)
        with open(path, "w", encoding="utf-8") as file:
            file.write(first_line + "\nfrom ctypes import c_void_p\n")
        return path

    def load(self, key, path):
        return self.codecache.PyCodeCache.load_by_key_path(key, path)

    def test_a_function_is_named_by_its_qualified_name(self):
        path = self.graph("cab.py", "# AOT ID: ['0_forward']")
        module = self.fake._compile(step.__code__, lambda: self.load("graph", path))
        self.assertTrue(hasattr(module, "call"))  # the loader's module, unchanged
        self.assertEqual(self.told, [(PROPERTY_PREFIX + path, "step")])

    def test_a_model_is_named_by_its_class_and_its_backward_by_the_compile_id(self):
        model = self.fake.OptimizedModule(Net())
        inner = self.fake.wrap_inline(model)  # what dynamo compiles for a whole model
        forward = self.graph("cfw.py", "# AOT ID: ['1_forward']")
        model(lambda: self.fake._compile(inner.__code__, lambda: self.load("graph", forward)))
        # Backward is compiled at the first backward: no dynamo frame, the same compile id.
        backward = self.graph("cbw.py", "# AOT ID: ['1_backward']")
        self.load("graph", backward)
        self.assertEqual(self.told, [(PROPERTY_PREFIX + forward, "Net"),
                                     (PROPERTY_PREFIX + backward, "Net backward")])

    def test_what_names_nothing(self):
        # A kernel's file (no `call`), a graph with nothing compiled on the stack, and a backward
        # whose forward was never named.
        self.fake._compile(step.__code__, lambda: self.load("kernel", self.graph("k.py", "")))
        self.load("graph", self.graph("c0.py", "# AOT ID: ['0_forward']"))
        self.compile_id = "7/0"
        self.load("graph", self.graph("c1.py", "# AOT ID: ['7_backward']"))
        self.assertEqual(self.told, [])

    def test_a_failure_names_nothing_more_and_the_program_loads_on(self):
        self.names._tell = lambda key, name: 1 / 0
        path = self.graph("c2.py", "# AOT ID: ['0_forward']")
        err = io.StringIO()
        with redirect_stderr(err):
            first = self.fake._compile(step.__code__, lambda: self.load("graph", path))
            second = self.fake._compile(step.__code__, lambda: self.load("graph", path))
        self.assertTrue(hasattr(first, "call") and hasattr(second, "call"))
        self.assertEqual(err.getvalue().count("memfloor: naming compiled graphs failed"), 1)

    def test_the_loaders_own_exception_passes_through(self):
        def broken(cls, key, path, *args, **kwargs):
            raise FileNotFoundError(path)

        codecache = types.SimpleNamespace(PyCodeCache=type(
            "PyCodeCache", (), {"load_by_key_path": classmethod(broken)}))
        self.assertTrue(CompiledNames(lambda k, n: None, lambda: None).install(codecache))
        with self.assertRaises(FileNotFoundError):
            codecache.PyCodeCache.load_by_key_path("graph", "/nonexistent.py")
        # Installed once: a second install leaves the wrapper alone.
        self.assertFalse(CompiledNames(lambda k, n: None, lambda: None).install(codecache))

    def test_graph_kind(self):
        self.assertEqual(graph_kind(self.graph("a.py", "# AOT ID: ['3_inference']")), "inference")
        self.assertEqual(graph_kind(self.graph("b.py", "import triton")), "")


if __name__ == "__main__":
    unittest.main()
