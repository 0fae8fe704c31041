"""iteration_ranges: which NVTX ranges are iterations, and a census that waits for the iteration
range around its optimizer step to close."""

import threading
import types
import unittest
import unittest.mock

from memfloor.census_schedule import CensusSchedule, parse_schedule, ranges_from_environment
from memfloor.iteration_ranges import IterationRanges
from test_census_schedule import step

# The analysis' default (analysis/iteration_tracker.h), as `memfloor run` passes it.
DEFAULT = r"(iteration|iter|step|train_step)([\s_:#=./-]*\d+)?"


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


class IterationRangesTest(unittest.TestCase):
    def setUp(self):
        self.calls = []
        self.nvtx = fake_nvtx(self.calls)
        self.ranges = IterationRanges(DEFAULT)
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
        ranges = IterationRanges(None)
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
        self.assertFalse(IterationRanges(DEFAULT).install(partial))
        self.assertFalse(hasattr(getattr(partial, "range_push"), "__wrapped__"))


class WaitingCensusTest(unittest.TestCase):
    def setUp(self):
        self.calls = []
        self.nvtx = fake_nvtx(self.calls)
        ranges = IterationRanges(DEFAULT)
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
        ranges = IterationRanges(DEFAULT)
        ranges.install(nvtx)
        recorder = RecordingSchedule(ranges, calls, text="2").schedule
        nvtx.range_push("iteration 0")
        step(recorder)
        nvtx.range_pop()
        self.assertNotIn(("census",), calls)


class FromEnvironmentTest(unittest.TestCase):
    def test_the_pattern_comes_from_the_environment_and_a_bad_one_is_said(self):
        nvtx = fake_nvtx([])
        torch = types.SimpleNamespace(cuda=types.SimpleNamespace(nvtx=nvtx))
        ranges = ranges_from_environment(torch, {"MEMFLOOR_CENSUS_RANGES": "phase"})
        nvtx.range_push("phase")
        self.assertTrue(ranges.inside())
        nvtx.range_pop()
        with unittest.mock.patch("sys.stderr") as stderr:
            ranges = ranges_from_environment(types.SimpleNamespace(
                cuda=types.SimpleNamespace(nvtx=fake_nvtx([]))), {"MEMFLOOR_CENSUS_RANGES": "("})
        self.assertIsNotNone(ranges)
        self.assertIn("MEMFLOOR_CENSUS_RANGES=(", "".join(
            str(call.args[0]) for call in stderr.write.call_args_list))
        self.assertIsNone(ranges_from_environment(types.SimpleNamespace(cuda=None), {}))


if __name__ == "__main__":
    unittest.main()
