"""FreeBlocks: the size of the block an allocation took, from the allocator's free blocks."""

import unittest

from memfloor.free_blocks import SMALL_SIZE, FreeBlocks, rounded

MIB = 1 << 20


def state(*segments):
    """Snapshot segments: (start, [(address, size, state)...])."""
    return [{"device": 0, "address": start,
             "blocks": [{"address": a, "size": s, "state": st} for a, s, st in blocks]}
            for start, blocks in segments]


class FreeBlocksTest(unittest.TestCase):
    def test_requests_round_to_whole_blocks_where_the_map_knows_nothing(self):
        free = FreeBlocks()
        self.assertEqual([free.allocated(0, 0x1000 * i, n) for i, n in
                          enumerate((1, 8, 512, 513, 3 * MIB + 1))],
                         [512, 512, 512, 1024, 3 * MIB + 512])
        self.assertEqual(rounded(700, 1), 700)

    def test_small_blocks_split_whenever_512_bytes_remain(self):
        free = FreeBlocks()
        free.segment_allocated(0, 0x10000, 2 * MIB)
        self.assertEqual(free.allocated(0, 0x10000, 1000), 1024)
        self.assertEqual(free.allocated(0, 0x10400, 2 * MIB - 1024), 2 * MIB - 1024)

    def test_large_blocks_split_only_past_1_mib(self):
        free = FreeBlocks()
        free.segment_allocated(0, 0x100000000, 20 * MIB)
        self.assertEqual(free.allocated(0, 0x100000000, 2 * MIB), 2 * MIB)  # 18 MiB remain
        # 18 MiB free at +2 MiB: asking 17.5 MiB there leaves 512 KiB, which stays in the block.
        self.assertEqual(free.allocated(0, 0x100000000 + 2 * MIB, 17 * MIB + MIB // 2), 18 * MIB)
        limited = FreeBlocks(max_split_size=4 * MIB)
        limited.segment_allocated(0, 0x200000000, 20 * MIB)
        self.assertEqual(limited.allocated(0, 0x200000000, 8 * MIB), 20 * MIB)  # oversize: whole

    def test_expandable_segments_always_split(self):
        free = FreeBlocks(split_always=True)
        free.segment_allocated(0, 0x100000000, 20 * MIB)
        self.assertEqual(free.allocated(0, 0x100000000, 19 * MIB + 1), 19 * MIB + 512)

    def test_a_freed_block_merges_with_its_free_neighbours_in_its_segment(self):
        free = FreeBlocks()
        free.segment_allocated(0, 0x100000000, 8 * MIB)
        a = free.allocated(0, 0x100000000, 2 * MIB)
        b = free.allocated(0, 0x100000000 + 2 * MIB, 2 * MIB)
        self.assertEqual((a, b), (2 * MIB, 2 * MIB))  # 4 MiB free at +4 MiB
        free.freed(0, 0x100000000, a)
        free.freed(0, 0x100000000 + 2 * MIB, b)  # merges both ways: 8 MiB free again
        self.assertEqual(free.allocated(0, 0x100000000, 7 * MIB + MIB // 2), 8 * MIB)
        # Another segment's free block right after this one is not a neighbour.
        free.segment_allocated(0, 0x100000000 + 8 * MIB, 2 * MIB)
        free.freed(0, 0x100000000, 8 * MIB)
        self.assertEqual(free.allocated(0, 0x100000000, 7 * MIB + MIB // 2), 8 * MIB)

    def test_the_state_replaces_the_map_and_a_freed_segment_leaves_it(self):
        free = FreeBlocks()
        free.segment_allocated(0, 0x300000000, 4 * MIB)
        free.reset(state((0x100000000, [(0x100000000, 2 * MIB, "active_allocated"),
                                        (0x100000000 + 2 * MIB, SMALL_SIZE + MIB // 2,
                                         "inactive")])))
        self.assertEqual(free.allocated(0, 0x300000000, 3 * MIB + MIB // 2), 3 * MIB + MIB // 2)
        self.assertEqual(free.allocated(0, 0x100000000 + 2 * MIB, SMALL_SIZE + 512),
                         SMALL_SIZE + MIB // 2)  # taken whole
        free.freed(0, 0x100000000, 2 * MIB)  # a live block of the state: its segment is known
        free.segment_freed(0, 0x100000000)
        self.assertEqual(free.allocated(0, 0x100000000, 1536 * 1024), 1536 * 1024)


if __name__ == "__main__":
    unittest.main()
