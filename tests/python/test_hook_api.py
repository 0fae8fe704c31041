"""hook_api: the hook's companion entry points through ctypes."""

import ctypes
import os
import types
import unittest

from memfloor import hook_api

HOOK = os.environ.get("MEMFLOOR_HOOK_LIB", "")


def fake_library(census_v1, step_v1=None):
    """A library with the hook's entry points as C callbacks; `census_v1` or `step_v1` None: an
    older hook."""
    stack = ctypes.CFUNCTYPE(ctypes.c_uint32, ctypes.c_void_p, ctypes.c_uint32)(lambda f, n: 0)
    blocks = ctypes.CFUNCTYPE(ctypes.c_uint64, ctypes.c_void_p, ctypes.c_uint64)(lambda e, n: 0)
    library = types.SimpleNamespace(memfloor_python_stack_v1=stack, memfloor_blocks_v1=blocks)
    if census_v1 is not None:
        library.memfloor_census_v1 = ctypes.CFUNCTYPE(
            ctypes.c_uint64, ctypes.POINTER(hook_api.CensusV1), ctypes.POINTER(hook_api.HeldV1),
            ctypes.c_uint64)(census_v1)
    if step_v1 is not None:
        library.memfloor_step_v1 = ctypes.CFUNCTYPE(
            ctypes.c_uint32, ctypes.POINTER(hook_api.StepEventV1))(step_v1)
    return library


class HookApiTest(unittest.TestCase):
    def test_no_hook_without_a_path_or_when_not_loaded(self):
        self.assertIsNone(hook_api.find_hook(""))
        self.assertIsNone(hook_api.find_hook("/nonexistent/libmemfloor_hook.so"))

    def test_layouts_match_the_header(self):
        self.assertEqual(ctypes.sizeof(hook_api.PythonFrameV1), 24)
        self.assertEqual(ctypes.sizeof(hook_api.BlockEventV1), 40)
        self.assertEqual(ctypes.sizeof(hook_api.HeldV1), 48)
        self.assertEqual(ctypes.sizeof(hook_api.CensusV1), 40)
        self.assertEqual([hook_api.HeldV1.path.offset, hook_api.HeldV1.device.offset,
                          hook_api.HeldV1.reserved.offset], [16, 32, 44])
        self.assertEqual([hook_api.CensusV1.device.offset, hook_api.CensusV1.reserved.offset],
                         [24, 36])
        self.assertEqual(ctypes.sizeof(hook_api.StepEventV1), 24)
        self.assertEqual([hook_api.StepEventV1.step.offset, hook_api.StepEventV1.phase.offset,
                          hook_api.StepEventV1.reserved.offset], [8, 16, 20])
        self.assertEqual(hook_api.HELD_ROLES, {"other": 0, "parameter": 1, "buffer": 2,
                                               "gradient": 3, "optimizer_state": 4})

    def test_a_census_reaches_the_hook_as_the_header_lays_it_out(self):
        seen = []

        def census_v1(census, held, count):
            header = census[0]
            seen.append(((header.unix_ns, header.objects, header.duration_ns, header.device,
                          header.step, header.complete),
                         [(held[i].address, held[i].size, held[i].path, held[i].via,
                           held[i].device, held[i].holders, held[i].role, held[i].reserved)
                          for i in range(count)]))
            return count + 1

        entries = [types.SimpleNamespace(address=0x1000, nbytes=64, path="model.lin.weight",
                                         via_graph=[], holders=2, role="parameter"),
                   types.SimpleNamespace(address=0x2000, nbytes=8, path="train.py:<module>.loss",
                                         via_graph=["SumBackward0", "MulBackward0"], holders=1,
                                         role="other")]
        hook = hook_api.Hook(fake_library(census_v1))
        self.assertTrue(hook.has_census)
        header = hook_api.CensusV1(unix_ns=5, objects=100, duration_ns=7, device=1, step=4,
                                   complete=1)
        self.assertEqual(hook.census(header, entries), 3)
        self.assertEqual(seen, [((5, 100, 7, 1, 4, 1), [
            (0x1000, 64, b"model.lin.weight", b"", 1, 2, 1, 0),
            (0x2000, 8, b"train.py:<module>.loss", b"SumBackward0 > MulBackward0", 1, 1, 0, 0)])])

    def test_an_older_hook_without_the_census_entry_point_records_none(self):
        hook = hook_api.Hook(fake_library(None))
        self.assertFalse(hook.has_census)
        self.assertFalse(hook.has_step)
        self.assertEqual(hook.census(hook_api.CensusV1(), []), 0)
        self.assertEqual(hook.step(hook_api.STEP_BEGIN, 1, 0, 5), 0)
        self.assertEqual(hook.backward_stack(3), 0)
        self.assertFalse(hook.has_module_stack)
        self.assertEqual(hook.module_stack(3), 0)

    def test_a_step_reaches_the_hook_as_the_header_lays_it_out(self):
        seen = []

        def step_v1(event):
            e = event[0]
            seen.append((e.unix_ns, e.step, e.optimizer_steps, e.phase, e.reserved))
            return 1

        hook = hook_api.Hook(fake_library(None, step_v1))
        self.assertTrue(hook.has_step)
        self.assertEqual(hook.step(hook_api.STEP_END, 7, 2, 1234), 1)
        self.assertEqual(hook.step(hook_api.STEP_BEGIN, 1 << 40, -3, 9), 1)  # clamped to u32
        self.assertEqual(seen, [(1234, 7, 2, 1, 0), (9, 0xFFFFFFFF, 0, 0, 0)])

    @unittest.skipUnless(HOOK and os.path.exists(HOOK), "MEMFLOOR_HOOK_LIB: the built hook")
    def test_an_untraced_process_records_nothing_and_does_not_fail(self):
        library = ctypes.CDLL(HOOK)  # loaded without cuInit: there is no session
        hook = hook_api.find_hook(HOOK)
        self.assertIsNotNone(hook)
        self.assertEqual(hook_api.Hook(library).python_stack([("a.py", "f", 1)]), 0)
        self.assertEqual(hook.blocks([(1, 0x10, 4, 0, 0, 0, hook_api.BLOCK_ALLOC)]), 0)
        entry = types.SimpleNamespace(address=0x10, nbytes=4, path="x", via_graph=[], holders=1,
                                      role="other")
        self.assertEqual(hook.census(hook_api.CensusV1(unix_ns=1, step=1, complete=1), [entry]),
                         0)
        self.assertEqual(hook.step(hook_api.STEP_BEGIN, 1, 0, 1), 0)
        self.assertEqual(hook.backward_stack(3), 0)  # the entry point is there, nothing set
        self.assertEqual(hook.backward_stack(0), 0)
        self.assertTrue(hook.has_module_stack)
        self.assertEqual(hook.module_stack(3), 0)


class NamePatternTest(unittest.TestCase):
    @unittest.skipUnless(HOOK, "MEMFLOOR_HOOK_LIB is not set (no built hook)")
    def test_the_built_hook_matches_names_with_re2(self):
        hook = hook_api.Hook(ctypes.CDLL(HOOK))
        self.assertTrue(hook.has_name_pattern)
        matches = hook.name_pattern("(a+)+")  # exponential for a backtracking engine
        self.assertFalse(matches("a" * 27 + "!"))
        self.assertTrue(matches("A" * 40))
        self.assertFalse(matches("\udc80"))  # a lone surrogate is a name like any other
        with self.assertRaisesRegex(ValueError, "missing \\)"):
            hook.name_pattern("(a")

    def test_an_older_hook_has_no_name_patterns(self):
        self.assertFalse(hook_api.Hook(fake_library(None)).has_name_pattern)


if __name__ == "__main__":
    unittest.main()
