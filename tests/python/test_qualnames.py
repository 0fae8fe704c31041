"""QualNames: the history's co_name frames take the qualified names the hook writes."""

import importlib.util
import os
import sys
import tempfile
import textwrap
import types
import unittest

from memfloor.qualnames import QualNames

SOURCE = textwrap.dedent('''\
    import functools


    def traced(f):
        @functools.wraps(f)
        def wrapper(*args):
            return f(*args)
        return wrapper


    class Attention:
        def forward(self, x):
            y = x + 1
            return y

        class Inner:
            def forward(self):
                return 2


    class Mlp:
        def forward(self, x):
            return x * 2

        @traced
        def step(self):
            return 3

        @property
        def size(self):
            return 4


    def cuda(module):
        return list(map(lambda t: t + 1,
                        module))
    ''')


def line_of(text: str) -> int:
    return SOURCE.splitlines().index(text) + 1


class QualNamesTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.TemporaryDirectory()
        cls.file = os.path.join(cls.dir.name, "memfloor_qualnames_sample.py")
        with open(cls.file, "w") as f:
            f.write(SOURCE)
        spec = importlib.util.spec_from_file_location("memfloor_qualnames_sample", cls.file)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        cls.modules = {"memfloor_qualnames_sample": module}

    @classmethod
    def tearDownClass(cls):
        cls.dir.cleanup()

    def test_methods_of_one_name_in_two_classes_are_told_apart_by_line(self):
        names = QualNames(self.modules)
        self.assertEqual(names.qualify(self.file, "forward", line_of("        y = x + 1")),
                         "Attention.forward")
        self.assertEqual(names.qualify(self.file, "forward", line_of("        return x * 2")),
                         "Mlp.forward")
        self.assertEqual(names.qualify(self.file, "forward", line_of("            return 2")),
                         "Attention.Inner.forward")

    def test_decorated_functions_properties_and_lambdas(self):
        names = QualNames(self.modules)
        self.assertEqual(names.qualify(self.file, "step", line_of("        return 3")), "Mlp.step")
        self.assertEqual(names.qualify(self.file, "size", line_of("        return 4")), "Mlp.size")
        self.assertEqual(names.qualify(self.file, "<lambda>", line_of("    return list(map(lambda t: t + 1,")),
                         "cuda.<locals>.<lambda>")

    @unittest.skipIf(sys.version_info < (3, 11), "co_qualname is Python 3.11's")
    def test_the_decorators_own_wrapper_is_its_own(self):
        names = QualNames(self.modules)
        self.assertEqual(names.qualify(self.file, "wrapper", line_of("        return f(*args)")),
                         "traced.<locals>.wrapper")

    def test_objects_whose_attributes_run_code_are_not_asked(self):
        # torch.classes: any attribute looked up raises (RuntimeError: "Tried to instantiate
        # class '__func__.__code__'"); a module's such member must not stop the index.
        class Raising:
            def __getattr__(self, name):
                raise RuntimeError(f"Tried to instantiate class '{name}'")

        module = types.ModuleType("memfloor_qualnames_sample")  # as if it defined Attention
        module.__file__ = self.file
        module.classes = Raising()
        module.Attention = self.modules["memfloor_qualnames_sample"].Attention
        names = QualNames({"memfloor_qualnames_raising": module, "not a module": Raising()})
        self.assertEqual(names.qualify(self.file, "forward", line_of("        y = x + 1")),
                         "Attention.forward")

    def test_what_it_cannot_place_keeps_its_name(self):
        names = QualNames(self.modules)
        self.assertEqual(names.qualify(self.file, "forward", 1), "forward")  # no such line
        self.assertEqual(names.qualify(self.file, "missing", line_of("        y = x + 1")),
                         "missing")
        self.assertEqual(names.qualify("/nowhere/generated.py", "call", 5), "call")
        self.assertEqual(names.qualify("<frozen importlib._bootstrap>", "_load", 5), "_load")


if __name__ == "__main__":
    unittest.main()
