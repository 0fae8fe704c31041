# MF001 across a class hierarchy: a belief is keyed by the attribute and the call, whichever class's
# method holds the release. Seed 000's shape in the framework: the base layer's method commits the
# manager and clears it; a subclass adds a method of another name that commits it and keeps it.
# Each positive sits beside a negative of the same shape. As in the framework, the offload
# interface comes from a package that is not checked here: no class of this program defines
# `commit`, and the release after it in the hierarchy is what makes it a use of `self.manager`.
# config: {"mf002_python": true, "mf004_python": true}
import torch
from offload_package import OffloadInterface


class BaseLayer(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.manager = None

    def pre_norm(self, x):
        self.manager = OffloadInterface(x)
        return x

    def post_norm(self, x):
        if self.manager is not None:
            x = self.manager.commit(x)
            self.manager = None
        return x


# The release is in a base method of another name: MF001 names it.
class FusedLayer(BaseLayer):
    def post_norm_fused(self, x):
        if self.manager is not None:
            x = self.manager.commit(x)  # expect: MF001{{'self.manager' keeps its device memory after 'commit' in 'FusedLayer.post_norm_fused': it is not released on every path to the exit, while 'BaseLayer.post_norm' releases it after the same call}}
        return x


# The same subclass with the clear: nothing to report.
class FixedFusedLayer(BaseLayer):
    def post_norm_fused(self, x):
        if self.manager is not None:
            x = self.manager.commit(x)
            self.manager = None
        return x


# Unguarded as well (a replay path): one finding on the line, MF001, which explains it; the missing
# guard (MF004) is its note, and is reported on its own once the release is added.
class ReplayLayer(BaseLayer):
    def replay_post_norm(self, x):
        return self.manager.commit(x)  # expect: MF001{{while 'BaseLayer.post_norm' releases it}}


# Guarded and cleared: neither rule.
class GuardedReplayLayer(BaseLayer):
    def replay_post_norm(self, x):
        if self.manager is None:
            return x
        x = self.manager.commit(x)
        self.manager = None
        return x


# Cleared but not guarded: the use-after-release hazard alone (MF004), nothing for MF001 to explain.
class ClearedReplayLayer(BaseLayer):
    def replay_post_norm(self, x):
        x = self.manager.commit(x)  # expect: MF004{{'self.manager' is dereferenced in 'ClearedReplayLayer.replay_post_norm'}}
        self.manager = None
        return x


# A library method that no method of the hierarchy releases the attribute after is no use of it:
# not `describe` on the same attribute, not `commit` on an attribute nothing releases (whose store
# MF002 reports).
class InspectingLayer(BaseLayer):
    def describe(self):
        if self.manager is not None:
            return self.manager.describe()
        return None


class SecondManagerLayer(BaseLayer):
    def pre_second(self, x):
        self.second_manager = OffloadInterface(x)  # expect: MF002{{'second_manager' is assigned in 'SecondManagerLayer.pre_second'}}

    def post_second(self, x):
        return self.second_manager.commit(x)


# An intermediate class between the base and the subclass changes nothing.
class MiddleLayer(BaseLayer):
    def extra(self, x):
        return x


class DeepFusedLayer(MiddleLayer):
    def post_norm_deep(self, x):
        if self.manager is not None:
            x = self.manager.commit(x)  # expect: MF001{{in 'DeepFusedLayer.post_norm_deep': it is not released on every path to the exit, while 'BaseLayer.post_norm' releases it}}
        return x


class DeepFixedLayer(MiddleLayer):
    def post_norm_deep(self, x):
        if self.manager is not None:
            x = self.manager.commit(x)
            self.manager = None
        return x


# A mixin provides the releasing method, the class beside it stores the attribute. An object of a
# class that combines them has one such attribute: the mixin's release teaches the combined class's
# methods (the teacher named is the mixin's method), and the store is not "released nowhere" (MF002).
class CommitMixin:
    def finish_commit(self, x):
        if self.stash_manager is not None:
            x = self.stash_manager.commit(x)
            self.stash_manager = None
        return x


class StashOwner:
    def stash(self, x):
        self.stash_manager = OffloadInterface(x)


class MixedLayer(CommitMixin, StashOwner):
    def fused_commit(self, x):
        if self.stash_manager is not None:
            x = self.stash_manager.commit(x)  # expect: MF001{{while 'CommitMixin.finish_commit' releases it after the same call}}
        return x


class MixedFixedLayer(CommitMixin, StashOwner):
    def fused_commit(self, x):
        if self.stash_manager is not None:
            x = self.stash_manager.commit(x)
            self.stash_manager = None
        return x
