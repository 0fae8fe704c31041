# Beliefs follow the receiver's class, never a bare method name. The shapes that made wrong findings
# on a large training framework's core, each next to the case that is still reported.
# config: {"disabled_rules": ["MF004"]}
from typing import Optional

import torch


class QuickStats:
    """A class whose `combine()` drops its own state: it releases nothing of another class's."""

    def __init__(self):
        self.samples = torch.zeros(8)

    def combine(self, others):
        self.samples = None
        return others

    def values(self):
        return self.samples


class Handle:
    def __init__(self):
        self.routing = torch.zeros(8)

    def wait(self):
        return self.routing

    def reset(self):
        self.routing = torch.zeros(8)  # in Python `reset()` rebuilds: it is no release idiom

    def release_state(self):
        self.routing = None


class Cache:
    def __init__(self):
        self.tensor = torch.zeros(8)

    def compute(self):
        return self.tensor


def make_cache():
    return Cache()


class Dispatcher:
    def __init__(self):
        self.handle_tensor = torch.zeros(8)
        self.stats = QuickStats()
        self.handle = Handle()
        self.buffers = {}
        self.cache = make_cache()

    # `combine(x)` after `compute()` is no release of the cache: a call with arguments does more
    # than drop state, and the cache (a Cache, by the methods called on it) has no `combine`.
    def forward(self, x):
        self.cache.compute()
        self.cache.combine(x)

    def forward_again(self):
        self.cache.compute()

    # `dict.values()` is dict's, although QuickStats defines `values()`.
    def sizes(self):
        return [v.numel() for v in self.buffers.values()]

    # `reset()` is an ordinary method in Python (here it rebuilds): the handle is kept after
    # `wait()` as in finish_late, where a C++ `reset()` would have released it.
    def restart(self):
        self.handle.wait()  # expect: MF001{{after 'wait' in 'Dispatcher.restart'}}
        self.handle.reset()

    # The teacher and its deviant, on a receiver the stores type (`self.handle = Handle()`).
    def finish(self):
        self.handle.wait()
        self.handle.release_state()

    def finish_late(self):
        self.handle.wait()  # expect: MF001{{'self.handle' keeps its device memory after 'wait' in 'Dispatcher.finish_late'}}


# A parameter's annotation types it: `node.get_grad()` is Node's, and Node's own backward teaches.
class Node:
    def __init__(self):
        self.inputs = [torch.zeros(4)]

    def get_grad(self):
        return self.inputs[0].grad

    def _release_state(self):
        self.inputs = None

    def backward(self):
        grads = self.get_grad()
        self._release_state()
        return grads


class OtherNode:
    """Another hierarchy with a method of the same name."""

    def __init__(self):
        self.kept = torch.zeros(4)

    def get_grad(self):
        return self.kept


def step(node: Optional[Node], other):
    grads = node.get_grad()  # expect: MF001{{'node' keeps its device memory after 'get_grad'}}
    # `other`'s class is not shown and two hierarchies define `get_grad`: no belief applies.
    more = other.get_grad()
    return grads, more


# A name set to None frees nothing while another owner keeps the object: the teacher's `= None`
# on its own local is no release to learn for a name, only a release of the object is.
class Stage:
    def __init__(self):
        self.activation = torch.zeros(4)

    def flush(self):
        return self.activation

    def report(self):
        return 0


def drop_name(stage: Stage):
    stage.flush()
    stage = None
    return stage


def keep_name(stage: Stage):
    stage.flush()  # a name's site learns only from releases of the object: none here
    return 1


# The release comes after another call on the object: `flush()` was not its last use, so the
# release teaches nothing about `flush()` (it teaches about `report()`).
class Pool:
    def __init__(self):
        self.buffer = Stage()

    def run(self):
        self.buffer.flush()
        self.buffer.report()
        self.buffer = None

    def run_once(self):
        self.buffer.flush()
        return 1
