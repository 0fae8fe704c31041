"""census_schedule: MEMFLOOR_CENSUS's steps, censuses taken after optimizer steps into a hook, one
record per device, and failures that turn censuses off without reaching the program."""

import io
import sys
import types
import unittest
import weakref
from unittest import mock

try:
    import torch
except ImportError:  # a Python without torch: those tests are skipped, visibly
    torch = None

from memfloor import census_schedule
from memfloor.census import Census, StorageEntry
from memfloor.census_schedule import CensusSchedule, Schedule, parse_schedule

N = 1 << 14  # elements of a planted tensor: 64 KiB of float32
MODULE = sys.modules[__name__]


class FakeHook:
    """Records each census as the hook would get it, with whatever else happened (`log`)."""

    has_census = True

    def __init__(self, log=None):
        self.log = log if log is not None else []
        self.headers, self.entries = [], []

    def census(self, header, entries):
        self.log.append("census")
        self.headers.append(dict(unix_ns=header.unix_ns, objects=header.objects,
                                 duration_ns=header.duration_ns, device=header.device,
                                 step=header.step, complete=header.complete))
        self.entries.append({entry.path: (entry.role, entry.nbytes, entry.via_graph)
                             for entry in entries})
        return len(entries) + 1


def step(recorder):
    """An optimizer step, then the idle moment the step clock would report next (the next first
    forward): training_steps.py's part, in the tests of the census' own."""
    recorder.stepped(recorder.steps + 1)
    recorder.idle()


def schedule(text="every", hook=None, **kwargs):
    hook = hook if hook is not None else FakeHook()
    return CensusSchedule(torch, parse_schedule(text), device_type="cpu", find=lambda: hook,
                          **kwargs), hook


def ending(paths, suffix):
    return [value for path, value in paths.items() if path.endswith(suffix)]


class ScheduleTest(unittest.TestCase):
    def due(self, text, last=20):
        return [step for step in range(1, last + 1) if parse_schedule(text).due(step)]

    def test_the_modes(self):
        self.assertEqual(self.due("auto", 40), [2, 4, 8, 16, 32])
        self.assertEqual(self.due("every", 4), [1, 2, 3, 4])
        self.assertEqual(self.due("off"), [])
        self.assertEqual(self.due("3,10"), [3, 10])
        self.assertEqual(self.due(" 10, 3 "), [3, 10])
        self.assertEqual(parse_schedule("7"), Schedule(census_schedule.LISTED, frozenset({7})))

    def test_bad_values_are_refused(self):
        for text in ("0", "x", "3,,4", "-1", "2.5", "Auto", "3,x", ""):
            with self.assertRaises(ValueError, msg=text):
                parse_schedule(text)

    def test_the_environment_says_a_bad_value_once_and_means_auto(self):
        self.assertEqual(census_schedule.schedule_from_environment({}).mode, "auto")
        self.assertEqual(census_schedule.schedule_from_environment({"MEMFLOOR_CENSUS": "off"}),
                         Schedule("off"))
        with mock.patch("sys.stderr", new_callable=io.StringIO) as stderr:
            got = census_schedule.schedule_from_environment({"MEMFLOOR_CENSUS": "3,x"})
        self.assertEqual(got, Schedule("auto"))
        lines = stderr.getvalue().splitlines()
        self.assertEqual(len(lines), 1)
        self.assertTrue(lines[0].startswith("memfloor: MEMFLOOR_CENSUS=3,x: "), lines[0])

    def test_one_record_per_device_with_storages(self):
        entries = [StorageEntry(0x10, 4, "cuda:1", "a", device_index=1),
                   StorageEntry(0x20, 8, "cuda:0", "b"),
                   StorageEntry(0x30, 16, "cuda:1", "c", device_index=1)]
        hook = FakeHook()
        census = Census(entries, objects=9, seconds=0.5, complete=False)
        self.assertEqual(census_schedule.send(hook, census, unix_ns=77, step=3), 2)
        self.assertEqual([(h["device"], h["step"], h["unix_ns"], h["objects"], h["complete"],
                           h["duration_ns"]) for h in hook.headers],
                         [(0, 3, 77, 9, 0, 500_000_000), (1, 3, 77, 9, 0, 500_000_000)])
        self.assertEqual([sorted(paths) for paths in hook.entries], [["b"], ["a", "c"]])
        self.assertEqual(census_schedule.send(hook, Census([], 9, 0.5, True), 77, 4), 0)
        self.assertEqual(len(hook.headers), 2)  # a census without storages: no record


@unittest.skipIf(torch is None, "torch is not installed")
class CensusScheduleTest(unittest.TestCase):
    def tearDown(self):
        for name in ("model", "planted", "CACHE"):
            MODULE.__dict__.pop(name, None)

    def test_a_census_after_the_scheduled_step_names_paths_roles_and_bytes(self):
        MODULE.model = model = torch.nn.Linear(N, 2)
        MODULE.model.kept = torch.zeros(N)
        MODULE.planted = [torch.zeros(2 * N)]
        MODULE.CACHE = {"k": torch.zeros(3 * N)}
        optimizer = torch.optim.Adam(model.parameters())
        model(torch.randn(1, N)).sum().backward()
        optimizer.step()
        log = []
        recorder, hook = schedule("2", FakeHook(log), drain=lambda: log.append("drain"))
        with mock.patch("time.time_ns", return_value=1234):
            step(recorder)
            self.assertEqual(hook.headers, [])  # step 1: not scheduled
            step(recorder)
        self.assertEqual(log, ["drain", "census"])
        [header] = hook.headers
        self.assertEqual((header["step"], header["device"], header["complete"],
                          header["unix_ns"]), (2, 0, 1, 1234))
        self.assertGreater(header["objects"], 10)
        self.assertGreater(header["duration_ns"], 0)
        [paths] = hook.entries
        self.assertEqual(ending(paths, ".model.kept"), [("other", 4 * N, [])])
        self.assertEqual(ending(paths, "test_census_schedule.planted[0]"),
                         [("other", 8 * N, [])])
        self.assertEqual(ending(paths, "test_census_schedule.CACHE['k']"),
                         [("other", 12 * N, [])])
        self.assertEqual(ending(paths, ".model.weight"), [("parameter", 8 * N, [])])
        self.assertEqual(ending(paths, ".model.weight.grad"), [("gradient", 8 * N, [])])
        self.assertEqual(ending(paths, ".optimizer.state[model.weight]['exp_avg']"),
                         [("optimizer_state", 8 * N, [])])
        self.assertEqual(recorder.taken, 1)

    def test_auto_takes_censuses_after_powers_of_two(self):
        MODULE.planted = [torch.zeros(N)]
        recorder, hook = schedule("auto")
        for _ in range(9):
            step(recorder)
        self.assertEqual([header["step"] for header in hook.headers], [2, 4, 8])

    def test_no_reference_is_kept_after_a_census(self):
        MODULE.planted = {"a": torch.zeros(N), "b": [torch.zeros(N)]}
        watched = [weakref.ref(MODULE.planted["a"]), weakref.ref(MODULE.planted["b"][0])]
        recorder, hook = schedule("every")
        step(recorder)
        self.assertEqual(len(ending(hook.entries[0], "planted['a']")), 1)
        del MODULE.planted
        self.assertEqual([ref() for ref in watched], [None, None])

    def test_a_failing_census_is_said_once_and_turns_censuses_off(self):
        recorder, hook = schedule("every")
        with mock.patch.object(census_schedule, "take_census",
                               side_effect=RuntimeError("walk broke")) as take, \
                mock.patch("sys.stderr", new_callable=io.StringIO) as stderr:
            step(recorder)  # does not raise
            step(recorder)
        self.assertEqual(take.call_count, 1)
        self.assertFalse(recorder.on)
        self.assertEqual(recorder.steps, 2)
        lines = stderr.getvalue().splitlines()
        self.assertEqual(len(lines), 1)
        self.assertTrue(lines[0].startswith("memfloor: census failed: "), lines[0])
        self.assertIn("walk broke", lines[0])

    def test_a_failing_hook_call_turns_censuses_off(self):
        class BrokenHook(FakeHook):
            def census(self, header, entries):
                raise OSError("hook gone")

        MODULE.planted = [torch.zeros(N)]
        recorder, _ = schedule("every", BrokenHook())
        with mock.patch("sys.stderr", new_callable=io.StringIO) as stderr:
            step(recorder)
        self.assertFalse(recorder.on)
        self.assertIn("census failed: OSError('hook gone')", stderr.getvalue())

    def test_an_older_hook_gets_no_census(self):
        class OldHook(FakeHook):
            has_census = False

        hook = OldHook()
        recorder, _ = schedule("every", hook)
        with mock.patch.object(census_schedule, "take_census") as take:
            step(recorder)
        take.assert_not_called()
        self.assertFalse(recorder.on)

    def test_verbose_says_one_line_per_census(self):
        MODULE.planted = [torch.zeros(N)]
        recorder, _ = schedule("every", verbose=True)
        with mock.patch("sys.stderr", new_callable=io.StringIO) as stderr:
            step(recorder)
        [line] = stderr.getvalue().splitlines()
        self.assertRegex(line, r"^memfloor: census after step 1: \d+ storages .* bytes held, "
                               r"\d+ objects walked, \d+\.\d\d s$")


if __name__ == "__main__":
    unittest.main()
