"""The caching allocator's free blocks as its last state showed them and its history has changed
them since: the size of the block an allocation took, which the history does not say.

A history entry holds the size asked for. PyTorch counts the block it handed out: the size rounded
up to a multiple of 512 bytes (kMinBlockSize), or, where the free block it took would leave a
remainder too small to split off, that whole free block. The allocator splits a small-pool block
(requests up to 1 MiB) when at least 512 bytes remain, and a large-pool block when more than 1 MiB
remains (and the request is under max_split_size_mb, unlimited by default); with expandable
segments it always splits. So the free block at the address an allocation took says its size.

Free blocks come from each snapshot's segments (`inactive` blocks), then follow the entries of the
next batch as the allocator would: a new segment is one free block, an allocation takes its free
block whole or splits the remainder off, a freed block merges with free neighbours of its segment,
a freed segment leaves. Where the map does not know an address (an event of the gap between a
snapshot and the history's clear), the rounded size stands; the next state corrects what is still
live (block_log.py)."""

from typing import Dict, Optional, Tuple

MIN_BLOCK_SIZE = 512  # kMinBlockSize: every block is a multiple of it
SMALL_SIZE = 1 << 20  # kSmallSize: the largest request of the small pool

Key = Tuple[int, int]  # (device, address)


def rounded(size: int, granule: int = MIN_BLOCK_SIZE) -> int:
    """The allocator's rounding of a request (granule 1: none)."""
    if granule <= 1:
        return size
    return max(granule, (size + granule - 1) // granule * granule)


class FreeBlocks:
    def __init__(self, split_always: bool = False, max_split_size: Optional[int] = None) -> None:
        self._split_always = split_always  # expandable segments
        self._max_split = max_split_size
        self._free: Dict[Key, Tuple[int, int]] = {}  # start -> (size, segment start)
        self._ends: Dict[Key, int] = {}  # end -> start, of the free blocks
        self._segment_of: Dict[Key, int] = {}  # a live block's start -> its segment's start

    # -- from a snapshot's state -----------------------------------------------------------------

    def reset(self, segments) -> None:
        """The free blocks and the live blocks' segments of a snapshot's state."""
        self._free.clear()
        self._ends.clear()
        self._segment_of.clear()
        for segment in segments:
            device, start = int(segment.get("device", 0)), int(segment.get("address", 0))
            for block in segment.get("blocks") or ():
                address, size = int(block["address"]), int(block["size"])
                if block.get("state") == "inactive":
                    self._add(device, address, size, start)
                else:
                    self._segment_of[(device, address)] = start

    # -- from the history ------------------------------------------------------------------------

    def segment_allocated(self, device: int, address: int, size: int) -> None:
        self._add(device, address, size, address)

    def segment_freed(self, device: int, address: int) -> None:
        found = self._free.get((device, address))
        if found is not None and found[1] == address:
            self._remove(device, address)

    def allocated(self, device: int, address: int, requested: int) -> int:
        """An allocation at `address`: the size of its block (the rounded request when the map
        does not know the free block there)."""
        size = rounded(requested)
        found = self._free.get((device, address))
        if found is None or found[0] < size:
            return size
        free, segment = found
        self._remove(device, address)
        self._segment_of[(device, address)] = segment
        remaining = free - size
        if self._split_always or size <= SMALL_SIZE:
            split = remaining >= MIN_BLOCK_SIZE
        else:
            split = remaining > SMALL_SIZE and (self._max_split is None or size < self._max_split)
        if not split:
            return free
        self._add(device, address + size, remaining, segment)
        return size

    def freed(self, device: int, address: int, size: int) -> None:
        """The block of `size` bytes at `address` went back to the allocator's cache."""
        segment = self._segment_of.pop((device, address), None)
        if segment is None:
            return  # a block the map never placed: its neighbours are not known
        start, end = address, address + size
        after = self._free.get((device, end))
        if after is not None and after[1] == segment:
            self._remove(device, end)
            end += after[0]
        before = self._ends.get((device, start))
        if before is not None and self._free[(device, before)][1] == segment:
            self._remove(device, before)
            start = before
        self._add(device, start, end - start, segment)

    # -- the map ---------------------------------------------------------------------------------

    def _add(self, device: int, address: int, size: int, segment: int) -> None:
        self._free[(device, address)] = (size, segment)
        self._ends[(device, address + size)] = address

    def _remove(self, device: int, address: int) -> None:
        size, _ = self._free.pop((device, address))
        self._ends.pop((device, address + size), None)
