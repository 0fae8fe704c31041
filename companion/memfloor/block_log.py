"""PyTorch's allocator history and state as block events (no torch needed: plain dicts in).

The caching allocator's memory history (torch.cuda.memory._record_memory_history) keeps a trace
of block allocations and frees with their Python frames; the companion takes it in batches
(`_snapshot()`, then clears it). A batch's entries and the allocator's state in the same snapshot
are consistent; what happens between taking a snapshot and clearing the history is not in any
batch, so each batch is reconciled with the state: a block the state holds but the log does not
was allocated in that gap, a block the log holds but the state does not was freed in it. Both are
dated to the gap.
"""

from typing import Callable, Dict, List, Optional, Sequence, Tuple

from memfloor.free_blocks import FreeBlocks
from memfloor.hook_api import BLOCK_ALLOC, BLOCK_FREE, Event, Frame
from memfloor.module_paths import METADATA_PREFIX, module_frame

# Block states that PyTorch counts as allocated (torch.cuda.memory_allocated): a block whose free
# waits for a stream's event is still allocated.
ALLOCATED_STATES = ("active_allocated", "active_awaiting_free")
NS_PER_US = 1000

StackOf = Callable[[Sequence[Frame]], int]
FramesAt = Callable[[int], Tuple[Frame, ...]]  # frames for an entry without any, by its time


def frames_of(entry: dict) -> Tuple[Frame, ...]:
    """An entry's or a block's frames, innermost first, as (file, function, line)."""
    return tuple(
        (str(f.get("filename", "")), str(f.get("name", "")), int(f.get("line", 0) or 0))
        for f in entry.get("frames") or ()
    )


def module_of(entry: dict) -> Tuple[Frame, ...]:
    """The frame of the module whose forward made the entry (module_paths.py), or ()."""
    metadata = entry.get("user_metadata")
    if isinstance(metadata, str) and metadata.startswith(METADATA_PREFIX) and \
            len(metadata) > len(METADATA_PREFIX):
        return (module_frame(metadata[len(METADATA_PREFIX):]),)
    return ()


class BlockLog:
    """The blocks live on every device as the trace knows them, and the events that keep it so.

    A history entry holds the size a block was asked for; PyTorch counts the block. A block live
    at a drain takes its size from the allocator's state; one allocated and freed between two
    drains takes the size of the free block it took as `free` models them (free_blocks.py), or,
    without a model (an allocator configuration it does not follow), the size asked for."""

    def __init__(self, free: Optional[FreeBlocks] = None) -> None:
        self._free = free
        self.live: Dict[Tuple[int, int], Tuple[int, int]] = {}  # (device, address) -> (size, stream)
        self._streams: Dict[int, int] = {0: 0}
        self.reconciled_allocs = 0  # blocks found in the state but in no entry
        self.reconciled_frees = 0
        self.unknown_frees = 0  # frees of blocks never seen allocated (skipped)
        self.events_written = 0
        self.resized = 0  # blocks larger than the entry said (sized from the state)

    def stream_id(self, handle: int) -> int:
        """A small id per stream handle, in order of first use; 0 is the default stream."""
        return self._streams.setdefault(handle, len(self._streams))

    def events(self, snapshot: dict, gap_ns: int, stack_of: StackOf,
               frames_at: Optional[FramesAt] = None) -> List[Event]:
        """The events of one snapshot. gap_ns: when the previous batch was cleared (the gap's
        time, for reconciled blocks). frames_at: the frames of an allocation the history has
        none for (made by backward on the autograd engine's threads), by its time."""
        out: List[Event] = []
        state = self._state(snapshot.get("segments") or ())
        last_alloc: Dict[Tuple[int, int], int] = {}  # block -> index in out of its last alloc
        for device, entries in enumerate(snapshot.get("device_traces") or ()):
            for entry in entries:
                self._entry(device, entry, gap_ns, stack_of, frames_at, out, last_alloc)
        self._resize(state, last_alloc, out)
        self._reconcile(state, gap_ns, stack_of, out)
        if self._free is not None:
            self._free.reset(snapshot.get("segments") or ())
        self.events_written += len(out)
        return out

    def _state(self, segments) -> Dict[Tuple[int, int], Tuple[int, int, dict]]:
        state: Dict[Tuple[int, int], Tuple[int, int, dict]] = {}
        for segment in segments:
            device = int(segment.get("device", 0))
            stream = self.stream_id(int(segment.get("stream", 0)))
            for block in segment.get("blocks") or ():
                if block.get("state") in ALLOCATED_STATES:
                    state[(device, int(block["address"]))] = (int(block["size"]), stream, block)
        return state

    def _entry(self, device: int, entry: dict, gap_ns: int, stack_of: StackOf,
               frames_at: Optional[FramesAt], out: List[Event],
               last_alloc: Dict[Tuple[int, int], int]) -> None:
        action = entry.get("action")
        if action in ("segment_alloc", "segment_free"):
            if self._free is not None:  # CUPTI records the segments; they shape the free blocks
                if action == "segment_alloc":
                    self._free.segment_allocated(device, int(entry["addr"]), int(entry["size"]))
                else:
                    self._free.segment_freed(device, int(entry["addr"]))
            return
        if action not in ("alloc", "free_completed"):
            return  # free_requested is not a free yet
        key = (device, int(entry["addr"]))
        when = int(entry["time_us"]) * NS_PER_US
        if action == "alloc":
            if key in self.live:  # freed in a gap and reused: close the old block first
                self._close(key, gap_ns, out)
                self.reconciled_frees += 1
            size = int(entry["size"])
            if self._free is not None:
                size = self._free.allocated(device, key[1], size)
            stream = self.stream_id(int(entry.get("stream", 0)))
            self.live[key] = (size, stream)
            last_alloc[key] = len(out)
            frames = frames_of(entry)
            if not frames and frames_at is not None:
                frames = frames_at(when)
            frames += module_of(entry)
            out.append((when, key[1], size, stream, device, stack_of(frames), BLOCK_ALLOC))
        elif key in self.live:
            if self._free is not None:
                self._free.freed(device, key[1], self.live[key][0])
            self._close(key, when, out)
        else:
            self.unknown_frees += 1

    def _resize(self, state, last_alloc: Dict[Tuple[int, int], int], out: List[Event]) -> None:
        """A history entry holds the size asked for; a block can be larger (the allocator does not
        split a large free block for a small remainder), and PyTorch counts the block. A block
        still live when its batch ends takes its size from the state; one freed within its batch
        keeps the entry's."""
        for key, index in last_alloc.items():
            if key in self.live and key in state and state[key][0] != self.live[key][0]:
                size = state[key][0]
                self.live[key] = (size, self.live[key][1])
                event = out[index]
                out[index] = event[:2] + (size,) + event[3:]
                self.resized += 1

    def _close(self, key: Tuple[int, int], when: int, out: List[Event]) -> None:
        size, stream = self.live.pop(key)
        out.append((when, key[1], size, stream, key[0], 0, BLOCK_FREE))

    def _reconcile(self, state, gap_ns: int, stack_of: StackOf, out: List[Event]) -> None:
        for key in [k for k in self.live if k not in state]:
            self._close(key, gap_ns, out)
            self.reconciled_frees += 1
        for key, (size, stream, block) in state.items():
            if key in self.live:
                continue
            self.live[key] = (size, stream)
            stack = stack_of(frames_of(block))
            out.append((gap_ns, key[1], size, stream, key[0], stack, BLOCK_ALLOC))
            self.reconciled_allocs += 1
