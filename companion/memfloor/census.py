"""A census of the storages a PyTorch process keeps alive, each with the shortest named path from a
root that holds it.

`take_census(torch)` walks, breadth first, from the locals of every running frame (module-level
code gives `train.py:<module>.history[7]`) and the globals of user modules (`mypkg.CACHE['k']`)
over named edges: attributes, dict keys, indices, closure cells, nn.Module children, parameters
and buffers (`model.layers[1].mlp.weight`), optimizer state keyed by its parameter
(`optimizer.state[model.lin.weight]['exp_avg']`), a tensor's .grad. From a tensor with a grad_fn
it walks the autograd graph too: a storage found only there is given the path of that tensor,
with the graph's node names in `via_graph`. Each storage on the device type is counted once, views
and aliases included, with how many distinct holders (root variables) reach it and its role
(census_roles): a parameter, buffer, gradient or optimizer state when its path says so.

What no Python path reaches (kept by C++ only) is not in the census: for the device's allocated
bytes, `census.not_seen_bytes(allocated)` is that remainder. The census keeps no reference to what
it walked once it returns (a function frame's f_locals snapshot is emptied after it is copied,
see docs/python-companion.md); it reads attributes without running the objects' code (no dir(),
no properties), and an object that raises anyway loses only its own edges."""

import gc
import glob
import os
import time
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Sequence, Tuple

from memfloor.census_edges import EdgeReader
from memfloor.census_roles import OTHER, RoleReader
from memfloor.census_roots import Root, default_roots
from memfloor.census_walk import Walk

MAX_OBJECTS = 20_000_000
MAX_DEPTH = 100
# This census' own files: their frames are no roots.
_OWN_FILES = tuple(glob.glob(os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                          "census*.py")))


@dataclass
class StorageEntry:
    address: int
    nbytes: int
    device: str
    path: str  # the shortest named path from a root
    via_graph: List[str] = field(default_factory=list)  # autograd nodes on the way, if any
    holders: int = 1  # distinct root variables that reach the storage
    role: str = OTHER  # census_roles: parameter, buffer, gradient, optimizer_state or other
    device_index: int = 0  # the device's index (0 for a device type without indices)

    @property
    def shared(self) -> bool:
        return self.holders > 1


@dataclass
class Census:
    storages: List[StorageEntry]
    objects: int  # objects walked (entered, or looked into: small containers of leaves)
    seconds: float
    complete: bool  # False when MAX_OBJECTS stopped the walk

    @property
    def held_bytes(self) -> int:
        return sum(entry.nbytes for entry in self.storages)

    def not_seen_bytes(self, allocated: int) -> int:
        """Of the device's allocated bytes, those no Python path reaches."""
        return allocated - self.held_bytes

    def find(self, path: str) -> Optional[StorageEntry]:
        return next((entry for entry in self.storages if entry.path == path), None)


def storage_key(tensor) -> Tuple[int, int]:
    """(address, bytes) of a tensor's whole storage: views and aliases share it."""
    untyped = getattr(tensor, "untyped_storage", None)  # PyTorch 2.x
    storage = untyped() if untyped is not None else tensor.storage()  # 1.13: a TypedStorage
    return storage.data_ptr(), storage.nbytes()


def _entries(walk: Walk, roles: RoleReader, device_type: str) -> List[StorageEntry]:
    entries: Dict[Tuple[int, int], StorageEntry] = {}
    holders: Dict[Tuple[int, int], set] = {}
    for index in walk.tensors:  # in walk order: the first tensor of a storage has its shortest path
        tensor = walk.objects[index]
        try:
            device = tensor.device
            if device.type != device_type:
                continue
            key = storage_key(tensor)
        except Exception:  # noqa: BLE001: a tensor without storage (sparse, meta)
            continue
        holders.setdefault(key, set()).update(walk.holders_of(index))
        if key not in entries:
            path, via_graph = walk.path_of(index)
            entries[key] = StorageEntry(key[0], key[1], str(device), path, via_graph,
                                        role=roles.role_of(walk, index),
                                        device_index=device.index or 0)
    for key, entry in entries.items():
        entry.holders = max(1, len(holders[key]))
    return list(entries.values())


def _optimizer_type(torch) -> Optional[type]:
    optimizer = getattr(getattr(torch, "optim", None), "Optimizer", None)
    return optimizer if isinstance(optimizer, type) else None


def take_census(torch, device_type: str = "cuda", roots: Optional[Sequence[Root]] = None,
                max_objects: int = MAX_OBJECTS, max_depth: int = MAX_DEPTH) -> Census:
    """The live storages of `device_type` reachable from `roots` (name, namespace dict) or, by
    default, from every thread's frames and the user modules' globals."""
    start = time.perf_counter()
    optimizer = _optimizer_type(torch)
    walk = Walk(EdgeReader(torch.Tensor, torch.nn.Module, optimizer), max_objects, max_depth)
    roles = RoleReader(torch.Tensor, torch.nn.Module, optimizer)
    # The walk allocates a row per object: with the collector on, each of its passes would go
    # over the whole heap again (a third of the time with 1M objects). It frees no cycle.
    collecting = gc.isenabled()
    gc.disable()
    try:
        walk.run(default_roots(_OWN_FILES) if roots is None else roots)
        storages = _entries(walk, roles, device_type)
        objects, complete = len(walk.objects) + walk.looked, walk.complete
    finally:
        walk.clear()
        if collecting:
            gc.enable()
    return Census(storages, objects, time.perf_counter() - start, complete)
