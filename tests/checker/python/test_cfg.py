"""The control-flow graph and its two path questions, on small functions."""

import ast
import unittest

from memfloor_pyfacts import cfg


def graph_of(source: str) -> cfg.Graph:
    return cfg.Graph(ast.parse(source).body[0].body)


def calls_named(g: cfg.Graph, name: str):
    """The nodes whose element calls `name()` somewhere."""
    found = []
    for n in g.nodes:
        elem = n.elem
        if isinstance(elem, (ast.With, ast.AsyncWith)):
            elem = ast.Tuple([i.context_expr for i in elem.items])  # its body has nodes of its own
        elif isinstance(elem, ast.ExceptHandler):
            elem = elem.type
        if isinstance(elem, ast.AST) and any(
                isinstance(c, ast.Call) and isinstance(c.func, ast.Name) and c.func.id == name
                for c in ast.walk(elem)):
            found.append(n)
    return found


def released_after(source: str, use: str = "use", release: str = "release") -> bool:
    g = graph_of(source)
    events = {n.index for n in calls_named(g, release)}
    value = cfg.must_after(g, lambda n: cfg.ALL if n.index in events else 0)
    (site,) = calls_named(g, use)
    result = cfg.ALL
    for s in site.succ:
        result &= value[s.index]
    return result == cfg.ALL


def guarded_before(source: str, use: str = "use", guard: str = "guard") -> bool:
    g = graph_of(source)
    events = {n.index for n in calls_named(g, guard)}
    value = cfg.must_before(g, lambda n: cfg.ALL if n.index in events else 0)
    (site,) = calls_named(g, use)
    return value[site.index] == cfg.ALL


class ReleasedAfter(unittest.TestCase):
    def test_straight_line(self):
        self.assertTrue(released_after("def f():\n use()\n release()\n"))
        self.assertFalse(released_after("def f():\n use()\n other()\n"))

    def test_branches(self):
        self.assertTrue(released_after(
            "def f(a):\n use()\n if a:\n  release()\n else:\n  release()\n"))
        self.assertFalse(released_after("def f(a):\n use()\n if a:\n  release()\n"))
        self.assertFalse(released_after(
            "def f(a, b):\n use()\n if a:\n  release()\n elif b:\n  pass\n else:\n  release()\n"))

    def test_early_return_and_raise(self):
        self.assertFalse(released_after("def f(a):\n use()\n if a:\n  return\n release()\n"))
        self.assertTrue(released_after("def f(a):\n use()\n if a:\n  raise E\n release()\n"))

    def test_loops(self):
        self.assertFalse(released_after("def f(n):\n use()\n for i in n:\n  release()\n"))
        self.assertFalse(released_after("def f(n):\n use()\n while n:\n  release()\n"))
        self.assertTrue(released_after(
            "def f(n):\n use()\n while True:\n  if n:\n   release()\n   break\n"))
        self.assertTrue(released_after("def f(n):\n for i in n:\n  use()\n release()\n"))

    def test_try(self):
        self.assertTrue(released_after(
            "def f():\n try:\n  use()\n finally:\n  release()\n"))
        self.assertTrue(released_after(
            "def f():\n try:\n  use()\n  return 1\n finally:\n  release()\n"))
        # An exception after the use, caught here, skips the release.
        self.assertFalse(released_after(
            "def f():\n try:\n  use()\n  other()\n  release()\n except E:\n  pass\n"))
        self.assertTrue(released_after(
            "def f():\n try:\n  use()\n except E:\n  release()\n  raise\n else:\n  release()\n"))

    def test_with_exit_is_passed_on_every_way_out(self):
        g = graph_of("def f(a):\n with m:\n  use()\n  if a:\n   return\n")
        exits = [n for n in g.nodes if isinstance(n.elem, cfg.WithExit)]
        value = cfg.must_after(g, lambda n: cfg.ALL if isinstance(n.elem, cfg.WithExit) else 0)
        (site,) = calls_named(g, "use")
        self.assertTrue(exits)
        self.assertEqual(cfg.ALL, value[site.succ[0].index])

    def test_labels_are_kept_apart(self):
        g = graph_of("def f(a):\n use()\n if a:\n  one()\n  two()\n else:\n  two()\n")
        ones = {n.index for n in calls_named(g, "one")}
        twos = {n.index for n in calls_named(g, "two")}
        value = cfg.must_after(g, lambda n: (1 if n.index in ones else 0) | (2 if n.index in twos else 0))
        (site,) = calls_named(g, "use")
        self.assertEqual(2, value[site.succ[0].index])


class GuardedBefore(unittest.TestCase):
    def test_guard_on_every_path(self):
        self.assertTrue(guarded_before("def f():\n guard()\n use()\n"))
        self.assertFalse(guarded_before("def f(a):\n if a:\n  guard()\n use()\n"))
        self.assertTrue(guarded_before("def f(a):\n if a:\n  guard()\n else:\n  guard()\n use()\n"))

    def test_exception_edge_leaves_before_the_guard(self):
        self.assertFalse(guarded_before(
            "def f():\n try:\n  guard()\n except E:\n  use()\n"))


if __name__ == "__main__":
    unittest.main()
