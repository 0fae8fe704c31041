"""nvtx_iterations: which NVTX ranges are iterations, and a census that waits for the iteration
range around its optimizer step to close."""

import ctypes
import os
import threading
import types
import unittest
import unittest.mock

from memfloor import hook_api
from memfloor.census_schedule import CensusSchedule, parse_schedule, ranges_from_environment
from memfloor.nvtx_iterations import NvtxIterations
from test_census_schedule import FakeHook, step

# The analysis' default (analysis/iteration_tracker.h), as `memfloor run` passes it.
DEFAULT = r"(iteration|iter|step|train_step)([\s_:#=./-]*\d+)?"
# The built hook matches the names (RE2); the tests that need it skip without one.
HOOK_LIB = os.environ.get("MEMFLOOR_HOOK_LIB", "")
HOOK = hook_api.Hook(ctypes.CDLL(HOOK_LIB)) if HOOK_LIB else None
needs_hook = unittest.skipUnless(HOOK_LIB, "MEMFLOOR_HOOK_LIB is not set (no built hook)")


def loaded():
    return HOOK


def said(stderr):
    return "".join(str(call.args[0]) for call in stderr.write.call_args_list)


def fake_nvtx(calls):
    """torch.cuda.nvtx's four range functions, recording their calls."""
    ids = iter(range(100, 200))

    def range_push(msg):
        calls.append(("push", msg))
        return len(calls)

    def range_pop():
        calls.append(("pop",))
        return 0

    def range_start(msg):
        calls.append(("start", msg))
        return next(ids)

    def range_end(range_id):
        calls.append(("end", range_id))

    return types.SimpleNamespace(range_push=range_push, range_pop=range_pop,
                                 range_start=range_start, range_end=range_end)


class RecordingSchedule:
    """A CensusSchedule whose take() records the calls instead of walking."""

    def __init__(self, ranges, calls, text="every"):
        self.schedule = CensusSchedule(None, parse_schedule(text), device_type="cpu",
                                       find=lambda: None, ranges=ranges)
        self.schedule.take = lambda: calls.append(("census",))


@needs_hook
class NvtxIterationsTest(unittest.TestCase):
    def setUp(self):
        self.calls = []
        self.nvtx = fake_nvtx(self.calls)
        self.ranges = NvtxIterations(DEFAULT, loaded)
        self.assertTrue(self.ranges.install(self.nvtx))

    def test_the_wrappers_call_the_originals_and_return_what_they_return(self):
        self.assertEqual(self.nvtx.range_push("iteration 1"), 1)
        self.assertTrue(self.ranges.inside())
        self.assertEqual(self.nvtx.range_pop(), 0)
        self.assertFalse(self.ranges.inside())
        self.assertEqual(self.nvtx.range_start("step 3"), 100)
        self.assertTrue(self.ranges.inside())
        self.assertIsNone(self.nvtx.range_end(100))
        self.assertEqual(self.calls, [("push", "iteration 1"), ("pop",), ("start", "step 3"),
                                      ("end", 100)])
        self.assertIsNotNone(getattr(self.nvtx.range_push, "__wrapped__", None))

    def test_only_ranges_the_pattern_names_are_iterations(self):
        self.nvtx.range_push("epoch 0")
        self.assertFalse(self.ranges.inside())
        self.nvtx.range_push("Iteration 4")  # case-insensitive, as the analysis matches
        self.nvtx.range_push("forward")
        self.assertTrue(self.ranges.inside())
        self.nvtx.range_pop()
        self.assertTrue(self.ranges.inside())
        self.nvtx.range_pop()
        self.assertFalse(self.ranges.inside())
        self.nvtx.range_push("iteration 4 of 9")  # a full match only
        self.assertFalse(self.ranges.inside())

    def test_without_a_pattern_every_outermost_range_is_one(self):
        ranges = NvtxIterations(None)
        nvtx = fake_nvtx([])
        ranges.install(nvtx)
        nvtx.range_push("anything")
        nvtx.range_push("inner")
        nvtx.range_pop()
        self.assertTrue(ranges.inside())
        nvtx.range_pop()
        self.assertFalse(ranges.inside())

    def test_a_range_pushed_in_another_thread_is_not_this_threads(self):
        thread = threading.Thread(target=self.nvtx.range_push, args=("iteration 1",))
        thread.start()
        thread.join()
        self.assertFalse(self.ranges.inside())

    def test_a_pop_without_a_push_and_an_unknown_end_are_harmless(self):
        self.nvtx.range_pop()
        self.nvtx.range_end(12345)
        self.assertFalse(self.ranges.inside())

    def test_a_module_without_the_functions_is_left_alone(self):
        partial = types.SimpleNamespace(range_push=lambda msg: 0)
        self.assertFalse(NvtxIterations(DEFAULT, loaded).install(partial))
        self.assertFalse(hasattr(getattr(partial, "range_push"), "__wrapped__"))


@needs_hook
class WaitingCensusTest(unittest.TestCase):
    def setUp(self):
        self.calls = []
        self.nvtx = fake_nvtx(self.calls)
        ranges = NvtxIterations(DEFAULT, loaded)
        ranges.install(self.nvtx)
        self.recorder = RecordingSchedule(ranges, self.calls).schedule

    def test_a_step_inside_an_iteration_waits_for_its_end(self):
        self.nvtx.range_push("iteration 0")
        step(self.recorder)
        self.assertTrue(self.recorder.pending)
        self.assertNotIn(("census",), self.calls)
        self.nvtx.range_pop()
        self.assertEqual(self.calls[-2:], [("pop",), ("census",)])  # after the range closed
        self.assertFalse(self.recorder.pending)

    def test_a_step_outside_any_iteration_takes_it_at_the_next_idle_moment(self):
        self.recorder.stepped(1)
        self.assertEqual(self.calls, [])
        self.recorder.idle()
        self.assertEqual(self.calls, [("census",)])
        self.recorder.idle()
        self.assertEqual(self.calls, [("census",)])  # one per step

    def test_a_waiting_census_is_taken_before_the_next_iteration_opens(self):
        self.nvtx.range_push("iteration 0")
        self.nvtx.range_pop()
        self.recorder.stepped(1)  # after the range: a loop that steps outside its markers
        self.nvtx.range_push("forward")  # not an iteration: the window goes on
        self.nvtx.range_pop()
        self.assertNotIn(("census",), self.calls)
        self.nvtx.range_push("iteration 1")
        self.assertEqual(self.calls[-2:], [("census",), ("push", "iteration 1")])
        self.recorder.idle()  # the first forward, inside the iteration: nothing waits
        self.assertEqual(self.calls.count(("census",)), 1)

    def test_an_inner_range_closing_is_not_the_idle_window(self):
        self.nvtx.range_push("iteration 0")
        self.nvtx.range_push("optimizer")
        step(self.recorder)
        self.nvtx.range_pop()
        self.assertNotIn(("census",), self.calls)
        self.nvtx.range_pop()
        self.assertEqual(self.calls[-1], ("census",))

    def test_a_started_range_ends_from_any_thread(self):
        range_id = self.nvtx.range_start("step 1")
        step(self.recorder)
        thread = threading.Thread(target=self.nvtx.range_end, args=(range_id,))
        thread.start()
        thread.join()
        self.assertEqual(self.calls[-1], ("census",))

    def test_an_unscheduled_step_leaves_nothing_waiting(self):
        calls = []
        nvtx = fake_nvtx(calls)
        ranges = NvtxIterations(DEFAULT, loaded)
        ranges.install(nvtx)
        recorder = RecordingSchedule(ranges, calls, text="2").schedule
        nvtx.range_push("iteration 0")
        step(recorder)
        nvtx.range_pop()
        self.assertNotIn(("census",), calls)


@needs_hook
class HookMatchingTest(unittest.TestCase):
    """The names are matched by the hook (RE2), never by Python's backtracking re."""

    def test_a_pattern_that_backtracking_would_hang_on_is_matched_by_the_hook(self):
        # Python's re takes minutes over this push ((a+)+ and 27 a's then '!'), doubling per a.
        ranges = NvtxIterations("(a+)+", loaded)
        nvtx = fake_nvtx([])
        ranges.install(nvtx)
        nvtx.range_push("a" * 27 + "!")
        self.assertFalse(ranges.inside())
        nvtx.range_pop()
        nvtx.range_push("A" * 27)
        self.assertTrue(ranges.inside())

    def test_before_the_hook_is_loaded_no_range_is_an_iteration(self):
        hooks = [None]
        ranges = NvtxIterations(DEFAULT, lambda: hooks[0])
        nvtx = fake_nvtx([])
        ranges.install(nvtx)
        nvtx.range_push("iteration 0")
        self.assertFalse(ranges.inside())
        nvtx.range_pop()
        hooks[0] = HOOK
        with unittest.mock.patch("memfloor.nvtx_iterations.time.monotonic", return_value=1e9):
            nvtx.range_push("iteration 1")  # looked for again: a second has passed
        self.assertTrue(ranges.inside())

    def test_a_pattern_the_hook_refuses_is_said_once_and_every_outermost_range_counts(self):
        ranges = NvtxIterations("(", loaded)
        nvtx = fake_nvtx([])
        ranges.install(nvtx)
        with unittest.mock.patch("sys.stderr") as stderr:
            nvtx.range_push("anything")
            nvtx.range_push("inner")
        self.assertTrue(ranges.inside())
        self.assertEqual(said(stderr).count("MEMFLOOR_CENSUS_RANGES=(: missing )"), 1)

    def test_an_older_hook_without_pattern_matching_watches_no_range(self):
        older = types.SimpleNamespace(has_name_pattern=False)
        ranges = NvtxIterations(DEFAULT, lambda: older)
        nvtx = fake_nvtx([])
        ranges.install(nvtx)
        with unittest.mock.patch("sys.stderr") as stderr:
            nvtx.range_push("iteration 1")
            nvtx.range_pop()
            nvtx.range_push("iteration 2")
        self.assertFalse(ranges.inside())
        self.assertEqual(said(stderr).count("cannot match MEMFLOOR_CENSUS_RANGES"), 1)

    def test_a_failure_in_what_the_wrappers_add_is_said_once_and_never_reaches_the_program(self):
        calls = []
        nvtx = fake_nvtx(calls)
        ranges = NvtxIterations(None, loaded)
        ranges.install(nvtx)

        def broken():
            raise RuntimeError("census exploded")

        ranges.on_begin = broken
        with unittest.mock.patch("sys.stderr") as stderr:
            self.assertEqual(nvtx.range_push("iteration 1"), 1)
            self.assertEqual(nvtx.range_pop(), 0)
            self.assertEqual(nvtx.range_push("iteration 2"), 3)
        self.assertEqual(calls, [("push", "iteration 1"), ("pop",), ("push", "iteration 2")])
        self.assertFalse(ranges.inside())
        self.assertEqual(said(stderr).count("watching NVTX ranges failed"), 1)


@needs_hook
class FromEnvironmentTest(unittest.TestCase):
    def test_the_pattern_comes_from_the_environment_and_a_bad_one_is_said(self):
        nvtx = fake_nvtx([])
        torch = types.SimpleNamespace(cuda=types.SimpleNamespace(nvtx=nvtx))
        ranges = ranges_from_environment(torch, {"MEMFLOOR_CENSUS_RANGES": "phase"}, loaded)
        nvtx.range_push("phase")
        self.assertTrue(ranges.inside())
        nvtx.range_pop()
        nvtx = fake_nvtx([])
        ranges = ranges_from_environment(types.SimpleNamespace(
            cuda=types.SimpleNamespace(nvtx=nvtx)), {"MEMFLOOR_CENSUS_RANGES": "("}, loaded)
        self.assertIsNotNone(ranges)
        with unittest.mock.patch("sys.stderr") as stderr:
            nvtx.range_push("x")
        self.assertIn("MEMFLOOR_CENSUS_RANGES=(", said(stderr))
        self.assertIsNone(ranges_from_environment(types.SimpleNamespace(cuda=None), {}))


class WatchRangesTest(unittest.TestCase):
    """torch.cuda.nvtx is wrapped only where a census can wait for its ranges."""

    def torch(self):
        return types.SimpleNamespace(cuda=types.SimpleNamespace(nvtx=fake_nvtx([])))

    def census(self, torch, text="auto", hook=None):
        return CensusSchedule(torch, parse_schedule(text), device_type="cpu",
                              find=lambda: hook)

    def wrapped(self, torch):
        return hasattr(torch.cuda.nvtx.range_push, "__wrapped__")

    def test_with_censuses_on_the_ranges_are_watched(self):
        torch = self.torch()
        self.assertTrue(self.census(torch).watch_ranges({}))
        self.assertTrue(self.wrapped(torch))

    def test_with_censuses_off_nvtx_is_left_alone(self):
        torch = self.torch()
        self.assertFalse(self.census(torch, "off").watch_ranges({}))
        self.assertFalse(self.wrapped(torch))

    def test_a_loaded_hook_without_censuses_leaves_nvtx_alone(self):
        torch = self.torch()
        older = types.SimpleNamespace(has_census=False)
        self.assertFalse(self.census(torch, hook=older).watch_ranges({}))
        self.assertFalse(self.wrapped(torch))

    def test_a_hook_found_later_without_censuses_unwraps_nvtx(self):
        torch = self.torch()
        hooks = [None]
        census = CensusSchedule(torch, parse_schedule("every"), device_type="cpu",
                                find=lambda: hooks[0])
        original = torch.cuda.nvtx.range_push
        self.assertTrue(census.watch_ranges({}))
        hooks[0] = types.SimpleNamespace(has_census=False)
        step(census)
        self.assertIs(torch.cuda.nvtx.range_push, original)

    def test_a_failed_census_unwraps_nvtx(self):
        torch = self.torch()
        census = self.census(torch, "every", FakeHook())
        census.watch_ranges({})
        with unittest.mock.patch("memfloor.census_schedule.take_census",
                                 side_effect=RuntimeError("walk failed")), \
                unittest.mock.patch("sys.stderr"):
            step(census)
        self.assertFalse(census.on)
        self.assertFalse(self.wrapped(torch))


if __name__ == "__main__":
    unittest.main()
