"""The front end end to end on small sources: its facts, and the errors it names."""

import json
import os
import random
import sys
import tempfile
import unittest

from memfloor_pyfacts.main import collect, main

CONFIG = {
    "heavy_type_patterns": ["[Tt]ensor"],
    "python_heavy_name_patterns": ["[Mm]anager", "[Cc]ache"],
    "release_methods": ["clear", "pop", "reset"],
    "store_methods": ["push_back"],
}


class FrontEnd(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.addCleanup(self.dir.cleanup)

    def write(self, name: str, text: str) -> str:
        path = os.path.join(self.dir.name, name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(text)
        return path

    def test_a_file_that_does_not_parse_is_named_and_the_rest_is_read(self):
        self.write("good.py", "class A:\n    def f(self):\n        self.manager = None\n")
        bad = self.write("bad.py", "def f(:\n")
        envelope = collect([self.dir.name], CONFIG, 1, [])
        self.assertEqual(1, envelope["files"])
        self.assertEqual(1, len(envelope["errors"]))
        self.assertTrue(envelope["errors"][0].startswith(bad + ":1: cannot parse"))
        self.assertIn("good.A.f", envelope["facts"]["functions"])

    def test_missing_paths_and_non_regular_files_are_errors(self):
        fifo = os.path.join(self.dir.name, "pipe.py")
        os.mkfifo(fifo)
        envelope = collect([fifo, os.path.join(self.dir.name, "absent.py")], CONFIG, 1, [])
        self.assertEqual(0, envelope["files"])
        self.assertEqual(sorted([fifo + ": not a regular file",
                                 os.path.join(self.dir.name, "absent.py") + ": no such file or directory"]),
                         sorted(envelope["errors"]))

    def test_a_walk_skips_what_is_not_a_file_and_a_name_given_is_an_error(self):
        # An Emacs lock file: a dangling link beside the buffer being edited, named like a source.
        self.write("layer.py", "class A:\n    def f(self):\n        self.manager = None\n")
        lock = os.path.join(self.dir.name, ".#layer.py")
        target = "user@host.1234:1700000000"
        os.symlink(target, lock)
        fifo = os.path.join(self.dir.name, "pipe.py")
        os.mkfifo(fifo)
        walked = collect([self.dir.name], CONFIG, 1, [])
        self.assertEqual([], walked["errors"])
        self.assertEqual(1, walked["files"])
        named = collect([lock, fifo], CONFIG, 1, [])
        self.assertEqual([f"{lock}: a symbolic link to '{target}', which does not exist",
                          f"{fifo}: not a regular file"], named["errors"])
        # Named and found by the walk too: named.
        both = collect([self.dir.name, fifo], CONFIG, 1, [])
        self.assertEqual([fifo + ": not a regular file"], both["errors"])

    def test_syntax_newer_than_the_interpreter_names_the_interpreter(self):
        testdata = os.path.join(os.path.dirname(__file__), "..", "..", "..", "testdata")
        path = os.path.normpath(os.path.join(testdata, "checker/newer_python/pep695_pep701.py"))
        with open(path) as f:
            line = next(n for n, text in enumerate(f, 1) if "# expect-error:" in text)
        envelope = collect([path], CONFIG, 1, [])
        if sys.version_info >= (3, 12):  # this interpreter reads it
            self.assertEqual(([], 1), (envelope["errors"], envelope["files"]))
            return
        self.assertEqual(1, len(envelope["errors"]))
        error = envelope["errors"][0]
        self.assertTrue(error.startswith(f"{path}:{line}: cannot parse: "), error)
        version = f"{sys.version_info[0]}.{sys.version_info[1]}"
        hint = (f" (parsed by Python {version} at {sys.executable}; code for a newer Python needs"
                " --python naming that interpreter)")
        self.assertTrue(error.endswith(hint), error)

    def test_excludes_hidden_directories_and_stubs(self):
        self.write("pkg/__init__.py", "")
        self.write("pkg/mod.py", "")
        self.write("pkg/tests/test_x.py", "")
        self.write("pkg/.hidden/y.py", "")
        self.write("pkg/stub.pyi", "")
        envelope = collect([self.dir.name], CONFIG, 1, ["tests"])
        units = sorted(os.path.relpath(u, self.dir.name) for u in envelope["facts"]["units"])
        self.assertEqual(["pkg/__init__.py", "pkg/mod.py"], units)

    def test_modules_resolve_bases_across_packages(self):
        self.write("pkg/__init__.py", "from .base import *\n")
        self.write("pkg/base.py", "class Base:\n    def f(self):\n        pass\n")
        self.write("pkg/sub/__init__.py", "")
        self.write("pkg/sub/child.py",
                   "from pkg import Base\nclass Child(Base):\n    def f(self):\n        pass\n")
        facts = collect([self.dir.name], CONFIG, 1, [])["facts"]
        self.assertEqual(["pkg.base.Base"], facts["records"]["pkg.sub.child.Child"])
        self.assertEqual(["pkg.base.Base.f"], facts["functions"]["pkg.sub.child.Child.f"]["overrides"])

    def test_parallel_and_serial_runs_agree(self):
        for i in range(6):
            self.write(f"m{i}.py", "import torch\nclass A:\n    def f(self, x):\n"
                                   "        self.manager = torch.zeros(1)\n"
                                   "        self.manager.use()\n        self.manager = None\n"
                                   "    def use(self):\n        pass\n")
        serial = collect([self.dir.name], CONFIG, 1, [])
        parallel = collect([self.dir.name], CONFIG, 2, [])
        self.assertEqual(json.dumps(serial, sort_keys=True), json.dumps(parallel, sort_keys=True))
        self.assertEqual(6, len(serial["facts"]["calls"]))

    def test_fix_anchor_is_after_the_statement_and_its_comment(self):
        source = ("class A:\n    def f(self):\n        self.manager.use()  # note\n"
                  "        self.manager.use(); other()\n"
                  "        if other(): self.manager.use()\n    def use(self):\n        pass\n")
        path = self.write("fix.py", "import torch\n" + source)
        calls = collect([path], CONFIG, 1, [])["facts"]["calls"]
        lines = open(path, "rb").read().split(b"\n")
        first = next(c for c in calls if c["loc"]["line"] == 4)
        self.assertEqual(4, first["fix_after"]["line"])
        self.assertEqual(sum(len(x) + 1 for x in lines[:3]) + len(lines[3]), first["fix_after"]["offset"])
        self.assertEqual("        ", first["fix_indent"])
        second = next(c for c in calls if c["loc"]["line"] == 5)
        self.assertEqual(0, second["fix_after"]["line"])  # `a(); b()`: no line of its own
        third = next(c for c in calls if c["loc"]["line"] == 6)
        self.assertEqual(0, third["fix_after"]["line"])  # `if c: a()`: the line would run always

    def test_guard_anchor_only_where_skipping_the_statement_binds_nothing_new(self):
        source = ("class A:\n    def f(self, x):\n"
                  "        x = self.manager.use(x)\n"         # line 4: rebinds what it reads
                  "        self.manager.use(x)\n"             # 5: a call
                  "        y = self.manager.use(x)\n"         # 6: binds y, read nowhere before
                  "        x.a = self.manager.use(x)\n"       # 7: not a name
                  "        x = self.manager.use(\n            x)\n"  # 8: two lines
                  "        x += self.manager.use(x)\n"        # 10: augmented
                  "    def use(self, x):\n        pass\n")
        path = self.write("guard.py", "import torch\n" + source)
        calls = collect([path], CONFIG, 1, [])["facts"]["calls"]
        at = {c["loc"]["line"]: c.get("guard_at") for c in calls}
        with open(path, "rb") as f:
            lines = f.read().split(b"\n")
        self.assertEqual({"file": path, "line": 4, "column": 9,
                          "offset": sum(len(x) + 1 for x in lines[:3]) + 8}, at[4])
        self.assertEqual(5, at[5]["line"])
        self.assertEqual(10, at[10]["line"])
        for line in (6, 7, 8):
            self.assertIsNone(at[line], line)

    def test_a_member_annotated_as_a_tensor_is_heavy_whatever_its_value(self):
        # `make` is nothing the code shows (torch through a star import, say): only the annotation
        # tells that `buf`, `bufs` and `quoted` hold tensors, and that `count` does not.
        source = ("from typing import Dict, Optional\nfrom torch import Tensor\nfrom lib import *\n"
                  "class A:\n    def step(self, n):\n"
                  "        self.buf: Tensor = make(n)\n"
                  "        self.bufs: Dict[int, Optional[Tensor]] = make(n)\n"
                  "        self.quoted: 'torch.Tensor' = make(n)\n"
                  "        self.count: int = make(n)\n")
        facts = collect([self.write("typed.py", source)], CONFIG, 1, [])["facts"]
        self.assertEqual(["typed.A.buf", "typed.A.bufs", "typed.A.quoted"], sorted(facts["fields"]))

    def test_mutated_sources_are_named_or_read_never_crash(self):
        seeds = os.path.join(os.path.dirname(__file__), "..", "..", "..", "testdata", "checker", "python")
        texts = []
        for name in ("seed_offload_manager.py", "mf001_release_idioms.py"):
            with open(os.path.join(seeds, name), "rb") as f:
                texts.append(f.read())
        rng = random.Random(17)
        tokens = [b"(", b")", b":", b"\n", b"    ", b"if x:", b"try:", b"finally:", b"del ", b"None",
                  b"self.", b"with a:", b"return", b"raise", b"\x00", b"\xff", b"lambda: ", b"("*40]
        for i in range(120):
            data = bytearray(rng.choice(texts))
            if i % 2:  # lines moved, copied, dropped: mostly still Python, with odd paths
                lines = bytes(data).split(b"\n")
                for _ in range(rng.randint(1, 8)):
                    a, b = rng.randrange(len(lines)), rng.randrange(len(lines))
                    op = rng.randrange(3)
                    if op == 0:
                        lines[a], lines[b] = lines[b], lines[a]
                    elif op == 1:
                        lines.insert(a, lines[b])
                    else:
                        del lines[a]
                data = bytearray(b"\n".join(lines))
            for _ in range(rng.randint(0, 6) if i % 2 == 0 else 0):
                at = rng.randrange(len(data))
                if rng.random() < 0.5:
                    del data[at:at + rng.randint(1, 30)]
                else:
                    data[at:at] = rng.choice(tokens)
            path = os.path.join(self.dir.name, f"m{i}.py")
            with open(path, "wb") as f:
                f.write(data)
        envelope = collect([self.dir.name], CONFIG, 1, [])
        self.assertEqual(120, envelope["files"] + len(envelope["errors"]))
        self.assertGreater(envelope["files"], 12)  # the scanner saw mutated code, not only errors
        for e in envelope["errors"]:
            self.assertIn(": cannot parse", e)
        json.dumps(envelope)

    def test_expressions_deeper_than_the_recursion_limit_are_read(self):
        # Each nests about twice as deep as Python's recursion limit. Besides the effect walk,
        # `nots` goes through `tested`, `conditional` through `_escape` and `negations` through
        # `light_value`: each of them recursed once per level.
        n = 2 * sys.getrecursionlimit()
        shapes = {
            "sum": "x = (self.manager.use()" + " + x" * n + ")",
            "chain": "x = (self.manager.use()" + ".T" * (n // 2) + ")",
            "methods": "x = (self.manager.use()" + ".t()" * (n // 2) + ")",
            "subscripts": "x = (self.manager.use()" + "[0]" * (n // 2) + ")",
            "power": "x = (self.manager.use()" + " ** x" * (n // 2) + ")",
            "nots": "if " + "not " * n + "self.manager.use():\n            pass",
            "conditional": "return self.manager.use()" + " if x else x" * (n // 2),
            "negations": "self.cache = " + "-" * n + "self.manager.use()",
        }
        for name, statement in shapes.items():
            with self.subTest(name):
                path = self.write(name + ".py", "class A:\n    def use(self):\n        pass\n"
                                  "    def f(self, x):\n        " + statement + "\n")
                envelope = collect([path], CONFIG, 1, [])
                self.assertEqual([], envelope["errors"])
                calls = [c for c in envelope["facts"]["calls"] if c["method"].endswith("A.use")]
                self.assertEqual([5], [c["loc"]["line"] for c in calls])

    def test_the_hierarchy_keys_a_field_and_teaches_calls_of_methods_defined_elsewhere(self):
        # `commit` is defined by no class here; the base releases self.manager after it, so the
        # subclass's call is a site of the same field. A mixin's attribute is the field of the class
        # beside it in a class that combines them.
        path = self.write("layers.py", (
            "from elsewhere import Interface\n"
            "class Base:\n"
            "    def start(self, x):\n        self.manager = Interface(x)\n"
            "    def finish(self, x):\n        self.manager.commit(x)\n        self.manager = None\n"
            "class Sub(Base):\n"
            "    def fused(self, x):\n        self.manager.commit(x)\n        self.manager.describe()\n"
            "class Mixin:\n"
            "    def drop(self):\n        self.cache = None\n"
            "class Owner:\n"
            "    def fill(self, x):\n        self.cache = x\n"
            "class Both(Mixin, Owner):\n"
            "    pass\n"))
        facts = collect([path], CONFIG, 1, [])["facts"]
        calls = sorted((c["function"], c["method"], c["field"]) for c in facts["calls"])
        self.assertEqual([("layers.Base.finish", "*.commit", "layers.Base.manager"),
                          ("layers.Sub.fused", "*.commit", "layers.Base.manager")], calls)
        fields = sorted({e["field"] for e in facts["events"] if e["field"].endswith(".cache")})
        self.assertEqual(["layers.Mixin.cache"], fields)

    def test_bad_config_json_exits_2(self):
        self.assertEqual(2, main(["--config-json", "[1", self.dir.name]))
        self.assertEqual(2, main(["--config-json", "[]", self.dir.name]))


if __name__ == "__main__":
    unittest.main()
