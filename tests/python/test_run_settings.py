"""run_settings: the companion's names of `memfloor run`'s settings are common/run_settings.h's, and
no part of the companion, the hook or the command line reads a MEMFLOOR_ variable by a name of its
own (a literal "MEMFLOOR_..." outside the two lists)."""

import ast
import os
import re
import unittest

from memfloor import run_settings

ROOT = os.path.join(os.path.dirname(__file__), "..", "..")
HEADER = os.path.join(ROOT, "common", "run_settings.h")
NAME = re.compile(r"^MEMFLOOR_[A-Z0-9_]+$")


def header_names():
    """{"kOutputDir": "MEMFLOOR_OUTPUT_DIR", ...} and {"kStackModes": ("auto", ...), ...}."""
    with open(HEADER, encoding="utf-8") as f:
        text = f.read()
    names = dict(re.findall(r'constexpr const char\* (k\w+) = "(MEMFLOOR_\w+)";', text))
    lists = {name: tuple(re.findall(r'"([^"]*)"', values)) for name, values in
             re.findall(r'std::array<std::string_view, \d+> (k\w+)\{([^}]*)\};', text)}
    return names, lists


def python_literals(path):
    """The string constants of a Python file that are whole MEMFLOOR_ names (not docstrings)."""
    with open(path, encoding="utf-8") as f:
        tree = ast.parse(f.read(), path)
    return [(path, n.lineno, n.value) for n in ast.walk(tree)
            if isinstance(n, ast.Constant) and isinstance(n.value, str) and NAME.match(n.value)]


def cpp_literals(path):
    with open(path, encoding="utf-8") as f:
        return [(path, i, m) for i, line in enumerate(f, 1)
                for m in re.findall(r'"(MEMFLOOR_[A-Z0-9_]+)"', line)]


class RunSettingsTest(unittest.TestCase):
    def test_the_companion_has_the_headers_names(self):
        names, lists = header_names()
        self.assertGreaterEqual(len(names), 10)
        ours = {k: v for k, v in vars(run_settings).items()
                if k.isupper() and isinstance(v, str) and NAME.match(v)}
        self.assertEqual(sorted(names.values()), sorted(ours.values()))
        self.assertEqual(lists["kStackModes"], run_settings.STACK_MODES)
        self.assertEqual(lists["kCensusModes"], run_settings.CENSUS_MODES)

    def test_no_part_names_a_variable_of_its_own(self):
        found = []
        companion = os.path.join(ROOT, "companion")
        for folder, _, files in os.walk(companion):
            for name in files:
                path = os.path.join(folder, name)
                if name.endswith(".py") and name != "run_settings.py":
                    found += python_literals(path)
        for module in ("cli", "runtime_hook", "analysis", "trace", "common"):
            for folder, _, files in os.walk(os.path.join(ROOT, module)):
                for name in files:
                    if name.endswith((".cpp", ".h")) and name != "run_settings.h":
                        found += cpp_literals(os.path.join(folder, name))
        self.assertEqual([], [(os.path.relpath(p, ROOT), line, v) for p, line, v in found])

    def test_census_off_and_stacks(self):
        self.assertTrue(run_settings.census_off({"MEMFLOOR_CENSUS": " off "}))
        self.assertFalse(run_settings.census_off({"MEMFLOOR_CENSUS": "2,10"}))
        self.assertFalse(run_settings.census_off({}))
        self.assertFalse(run_settings.stacks_on({"MEMFLOOR_STACKS": "none"}))
        self.assertTrue(run_settings.stacks_on({}))
        self.assertTrue(run_settings.verbose({"MEMFLOOR_VERBOSE": "1"}))
        self.assertFalse(run_settings.verbose({"MEMFLOOR_VERBOSE": "yes"}))


if __name__ == "__main__":
    unittest.main()
