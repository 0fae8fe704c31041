#!/usr/bin/env python3
"""Writes loop_snapshot.pickle, loop_snapshot.json and loop_snapshot.log.json: a PyTorch memory
snapshot (the dict torch.cuda.memory._snapshot() returns, as _dump_snapshot pickles it) of a
training loop on one device, made without a GPU, and the loop's own memory_allocated() after each
step, which a real program would log.

The loop: weights W (8 MiB) and a first held tensor H0 made before it; each step a forward
allocates an activation and a new held tensor H (asked 9.5 MiB, in a 10 MiB segment of its own: the
allocator does not split off the 0.5 MiB left, so the block is 10 MiB) that replaces the last one,
appends a 1 MiB tensor to a list (a leak), backward makes a gradient, and Adam's step makes its
state (first step) and a temporary under torch/optim/; zero_grad frees the gradient, and the loop
keeps a small copy of the loss (a new one each step, the last one freed).

The history keeps the last entries only (max_entries): the first segments and the allocations of W
and H0 fell out of it, so a reader must take them from the state at the dump and from H0's later
free.

  python3 testdata/snapshots/make_loop_snapshot.py testdata/snapshots
"""
import json
import os
import pickle
import sys

MiB = 1 << 20
STEPS = 4
DROPPED = 4  # the oldest entries the ring lost: S1's and H0's segments, W and H0


def frame(filename, name, line):
    return {"filename": filename, "name": name, "line": line}


# Shared frame objects and lists, as PyTorch's snapshot shares them (the pickle memoizes them).
TRAIN = frame("/srv/project/train.py", "main", 40)
MODEL_INIT = [frame("/srv/project/model.py", "__init__", 12), TRAIN]
CALL = frame("/usr/lib/python3/dist-packages/torch/nn/modules/module.py", "_call_impl", 1527)
FORWARD = [frame("/srv/project/model.py", "forward", 30), CALL, TRAIN]
HOLD = [frame("/srv/project/model.py", "forward", 33), CALL, TRAIN]
LEAK = [frame("/srv/project/train.py", "main", 44)]
LOSS = [frame("/srv/project/train.py", "main", 46)]
BACKWARD = [frame("/usr/lib/python3/dist-packages/torch/_tensor.py", "backward", 626), TRAIN]
ADAM_STATE = [frame("/usr/lib/python3/dist-packages/torch/optim/adam.py", "_init_group", 178),
              frame("/usr/lib/python3/dist-packages/torch/optim/adam.py", "step", 220),
              frame("/srv/project/train.py", "main", 42)]
ADAM_TEMP = [frame("/usr/lib/python3/dist-packages/torch/optim/adam.py", "_multi_tensor_adam", 560),
             frame("/usr/lib/python3/dist-packages/torch/optim/adam.py", "step", 230),
             frame("/srv/project/train.py", "main", 42)]


class Loop:
    def __init__(self):
        self.entries, self.blocks, self.segments, self.t = [], {}, {}, 1_700_000_000_000_000

    def tick(self):
        self.t += 100
        return self.t

    def segment(self, address, size, frames):
        self.segments[address] = (size, frames)
        self.entries.append({"action": "segment_alloc", "addr": address, "size": size,
                             "stream": 0, "time_us": self.tick(), "frames": frames})

    def alloc(self, address, asked, block, frames, metadata=None):
        self.blocks[address] = (block, asked, frames)
        entry = {"action": "alloc", "addr": address, "size": asked, "stream": 0,
                 "time_us": self.tick(), "frames": frames}
        if metadata:
            entry["user_metadata"] = metadata
        self.entries.append(entry)

    def free(self, address):
        block, asked, frames = self.blocks.pop(address)
        for action in ("free_requested", "free_completed"):
            self.entries.append({"action": action, "addr": address, "size": asked, "stream": 0,
                                 "time_us": self.tick(), "frames": frames})

    def allocated(self):
        return sum(block for block, _, _ in self.blocks.values())


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
    loop = Loop()
    S1, HOLDS, SMALL = 0x7F0000000000, 0x7F0010000000, 0x7F0020000000
    loop.segment(S1, 64 * MiB, MODEL_INIT)                  # dropped by the ring
    loop.alloc(S1, 8 * MiB, 8 * MiB, MODEL_INIT)            # W, dropped
    holds = [HOLDS, HOLDS + 16 * MiB]                       # two 10 MiB segments, in turn
    loop.segment(holds[0], 10 * MiB, HOLD)                  # dropped
    loop.alloc(holds[0], 9 * MiB + MiB // 2, 10 * MiB, HOLD)  # H0, dropped
    loop.segment(holds[1], 10 * MiB, HOLD)
    held = holds[0]
    LOSSES = SMALL + 32 * MiB
    loop.segment(LOSSES, 2 * MiB, LOSS)
    loop.alloc(LOSSES, 4, 512, LOSS)
    log = []
    leak_next = SMALL
    for step in range(1, STEPS + 1):
        act = S1 + 8 * MiB
        loop.alloc(act, 12 * MiB + 100, 12 * MiB + 512, FORWARD, "module:Net.encoder")
        other = holds[step % 2]
        loop.alloc(other, 9 * MiB + MiB // 2, 10 * MiB, HOLD, "module:Net.encoder")
        loop.free(held)
        held = other
        if (leak_next - SMALL) % (2 * MiB) == 0:
            loop.segment(leak_next, 2 * MiB, LEAK)
        loop.alloc(leak_next, MiB, MiB, LEAK)
        leak_next += MiB
        grad = S1 + 24 * MiB
        loop.alloc(grad, 8 * MiB, 8 * MiB, BACKWARD)
        loop.free(act)
        if step == 1:
            loop.alloc(S1 + 32 * MiB, 8 * MiB, 8 * MiB, ADAM_STATE)
        temp = S1 + 40 * MiB
        loop.alloc(temp, 8 * MiB, 8 * MiB, ADAM_TEMP)
        loop.free(temp)
        loop.free(grad)  # zero_grad(set_to_none=True)
        loop.alloc(LOSSES + (step % 2) * 512, 4, 512, LOSS)  # in the idle window: a new one,
        loop.free(LOSSES + ((step - 1) % 2) * 512)            # the old one freed
        log.append({"step": step, "memory_allocated": loop.allocated()})
    # The next step's forward has begun when the snapshot is taken.
    loop.alloc(S1 + 8 * MiB, 12 * MiB + 100, 12 * MiB + 512, FORWARD, "module:Net.encoder")

    segments = []
    for address, (size, frames) in sorted(loop.segments.items()):
        blocks, cursor = [], address
        for start, (block, asked, bframes) in sorted(loop.blocks.items()):
            if address <= start < address + size:
                if start > cursor:
                    blocks.append({"address": cursor, "size": start - cursor, "requested_size": 0,
                                   "state": "inactive", "frames": []})
                blocks.append({"address": start, "size": block, "requested_size": asked,
                               "state": "active_allocated", "frames": bframes})
                cursor = start + block
        if cursor < address + size:
            blocks.append({"address": cursor, "size": address + size - cursor,
                           "requested_size": 0, "state": "inactive", "frames": []})
        segments.append({"device": 0, "address": address, "total_size": size,
                         "allocated_size": sum(b["size"] for b in blocks
                                               if b["state"] != "inactive"),
                         "active_size": 0, "requested_size": 0, "stream": 0,
                         "segment_type": "large" if size > 2 * MiB else "small",
                         "segment_pool_id": (0, 0), "is_expandable": False,
                         "frames": frames, "blocks": blocks})
    snapshot = {"segments": segments, "device_traces": [loop.entries[DROPPED:]],
                "allocator_settings": {"PYTORCH_CUDA_ALLOC_CONF": "", "max_split_size": -1,
                                       "garbage_collection_threshold": 0.0,
                                       "expandable_segments": False,
                                       "roundup_power2_divisions": {"1": 0, "2": 0}}}
    with open(os.path.join(out, "loop_snapshot.pickle"), "wb") as f:
        pickle.dump(snapshot, f, protocol=4)
    with open(os.path.join(out, "loop_snapshot.json"), "w") as f:
        json.dump(snapshot, f)
    with open(os.path.join(out, "loop_snapshot.log.json"), "w") as f:
        json.dump({"steps": log}, f, indent=1)


if __name__ == "__main__":
    main()
