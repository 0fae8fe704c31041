"""BlockLog: the allocator's history and state as block events."""

import unittest

from memfloor.block_log import BlockLog, frames_of
from memfloor.free_blocks import FreeBlocks
from memfloor.hook_api import BLOCK_ALLOC, BLOCK_FREE

FRAMES = [{"filename": "train.py", "name": "forward", "line": 12},
          {"filename": "train.py", "name": "<module>", "line": 40}]


def entry(action, addr, size, time_us, stream=0, frames=()):
    return {"action": action, "addr": addr, "size": size, "stream": stream, "time_us": time_us,
            "frames": list(frames)}


def segment_at(address, size, blocks, device=0):
    return {"device": device, "stream": 0, "address": address, "total_size": size,
            "blocks": [{"address": a, "size": s, "state": st, "frames": []} for a, s, st in blocks]}


def segment(blocks, device=0, stream=0):
    return {"device": device, "stream": stream, "address": 0, "total_size": 1 << 21,
            "blocks": [{"address": a, "size": s, "state": st, "frames": list(f)}
                       for a, s, st, f in blocks]}


class Stacks:
    """A fake hook's stack interning: ids from 1, one per distinct frames."""

    def __init__(self):
        self.ids = {}

    def __call__(self, frames):
        return self.ids.setdefault(tuple(frames), len(self.ids) + 1) if frames else 0


class BlockLogTest(unittest.TestCase):
    def test_frames_innermost_first(self):
        self.assertEqual(frames_of({"frames": FRAMES}),
                         (("train.py", "forward", 12), ("train.py", "<module>", 40)))
        self.assertEqual(frames_of({}), ())

    def test_allocs_and_completed_frees_become_events(self):
        log, stacks = BlockLog(), Stacks()
        snapshot = {
            "device_traces": [[
                entry("segment_alloc", 0x1000, 1 << 21, 5),
                entry("alloc", 0x1000, 512, 10, frames=FRAMES),
                entry("free_requested", 0x1000, 512, 20),
                entry("free_completed", 0x1000, 512, 21),
                entry("alloc", 0x1200, 1024, 30, stream=0x55, frames=FRAMES),
            ]],
            "segments": [segment([(0x1200, 1024, "active_allocated", FRAMES)], stream=0x55)],
        }
        events = log.events(snapshot, 0, stacks)
        self.assertEqual(events, [
            (10_000, 0x1000, 512, 0, 0, 1, BLOCK_ALLOC),
            (21_000, 0x1000, 512, 0, 0, 0, BLOCK_FREE),
            (30_000, 0x1200, 1024, 1, 0, 1, BLOCK_ALLOC),
        ])
        self.assertEqual(log.live, {(0, 0x1200): (1024, 1)})
        self.assertEqual(log.reconciled_allocs + log.reconciled_frees, 0)

    def test_blocks_of_the_gap_are_reconciled_with_the_state(self):
        log, stacks = BlockLog(), Stacks()
        log.events({"device_traces": [[entry("alloc", 0x2000, 256, 1)]], "segments": [
            segment([(0x2000, 256, "active_allocated", ())])]}, 0, stacks)
        # Between that snapshot and the clear, 0x2000 was freed and 0x3000 allocated.
        events = log.events({"device_traces": [[]], "segments": [
            segment([(0x3000, 128, "active_awaiting_free", FRAMES), (0x2000, 256, "inactive", ())])
        ]}, 7_000, stacks)
        self.assertEqual(events, [
            (7_000, 0x2000, 256, 0, 0, 0, BLOCK_FREE),
            (7_000, 0x3000, 128, 0, 0, 1, BLOCK_ALLOC),
        ])
        self.assertEqual((log.reconciled_allocs, log.reconciled_frees), (1, 1))

    def test_a_reused_address_closes_the_block_freed_in_the_gap(self):
        log, stacks = BlockLog(), Stacks()
        log.events({"device_traces": [[entry("alloc", 0x4000, 64, 1)]], "segments": [
            segment([(0x4000, 64, "active_allocated", ())])]}, 0, stacks)
        events = log.events({"device_traces": [[entry("alloc", 0x4000, 96, 9)]], "segments": [
            segment([(0x4000, 96, "active_allocated", ())])]}, 5_000, stacks)
        self.assertEqual(events, [(5_000, 0x4000, 64, 0, 0, 0, BLOCK_FREE),
                                  (9_000, 0x4000, 96, 0, 0, 0, BLOCK_ALLOC)])

    def test_a_live_block_takes_its_size_from_the_state_a_freed_one_keeps_the_entrys(self):
        log, stacks = BlockLog(), Stacks()
        events = log.events({"device_traces": [[
            entry("alloc", 0x5000, 1000, 1),  # an unsplit block: 1536 bytes in the state
            entry("alloc", 0x6000, 700, 2),
            entry("free_completed", 0x6000, 700, 3),
        ]], "segments": [segment([(0x5000, 1536, "active_allocated", ())])]}, 0, stacks)
        self.assertEqual(events, [(1_000, 0x5000, 1536, 0, 0, 0, BLOCK_ALLOC),
                                  (2_000, 0x6000, 700, 0, 0, 0, BLOCK_ALLOC),
                                  (3_000, 0x6000, 700, 0, 0, 0, BLOCK_FREE)])
        self.assertEqual(log.live, {(0, 0x5000): (1536, 0)})
        self.assertEqual(log.resized, 1)
        # Its free, in a later batch, frees what the trace holds.
        events = log.events({"device_traces": [[entry("free_completed", 0x5000, 1000, 9)]],
                             "segments": []}, 5_000, stacks)
        self.assertEqual(events, [(9_000, 0x5000, 1536, 0, 0, 0, BLOCK_FREE)])

    def test_blocks_freed_between_drains_take_the_size_of_the_block_they_took(self):
        log = BlockLog(FreeBlocks())
        big, segment = 51_463_168, 52_428_800  # a 2 MiB-rounded segment, 943 KiB too large
        events = log.events({"device_traces": [[
            entry("alloc", 0x7000, 8, 1),  # a scalar: a 512-byte block
            entry("alloc", 0x7200, 1000, 2),
            entry("segment_alloc", 0x10000000, segment, 3),
            entry("alloc", 0x10000000, big, 4),  # the remainder is not split off: the whole segment
            entry("free_completed", 0x7000, 8, 5),
            entry("free_completed", 0x7200, 1000, 6),
            entry("free_completed", 0x10000000, big, 7),
            entry("alloc", 0x10000000, big - 4096, 8),  # the same free block, whole again
        ]], "segments": [segment_at(0x10000000, segment, [(0x10000000, segment, "active_allocated")])]},
            0, Stacks())
        self.assertEqual([(e[1], e[2]) for e in events if e[6] == BLOCK_ALLOC],
                         [(0x7000, 512), (0x7200, 1024), (0x10000000, segment), (0x10000000, segment)])
        self.assertEqual([e[2] for e in events if e[6] == BLOCK_FREE], [512, 1024, segment])
        self.assertEqual(log.resized, 0)  # the state agrees

    def test_frees_of_unknown_blocks_are_counted_not_written(self):
        log = BlockLog()
        events = log.events({"device_traces": [[entry("free_completed", 0x9000, 8, 3)]],
                             "segments": []}, 0, Stacks())
        self.assertEqual(events, [])
        self.assertEqual(log.unknown_frees, 1)

    def test_devices_are_the_trace_lists_index(self):
        log = BlockLog()
        events = log.events({"device_traces": [[], [entry("alloc", 0x10, 4, 2)]],
                             "segments": [segment([(0x10, 4, "active_allocated", ())], device=1)]},
                            0, Stacks())
        self.assertEqual(events, [(2_000, 0x10, 4, 0, 1, 0, BLOCK_ALLOC)])


if __name__ == "__main__":
    unittest.main()
