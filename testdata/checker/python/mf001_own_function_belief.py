# MF001 learns from *other* places: a function that releases an object after one call and keeps it
# after another call of the same method (a size query in the test of the branch that drops it)
# chooses by its own control flow which paths release, and teaches nothing to itself. The shape
# of PyTorch's FlatParamHandle.prepare_gradient (docs/checks/triage.md). Another function that
# calls the method and keeps the object is still reported, naming the first as its teacher.
import torch


class Shard:
    def __init__(self, n):
        self.grad = torch.empty(n)

    def size(self):
        return self.grad.numel()


class Handle:
    def __init__(self, n):
        self.shard = Shard(n)
        self.expected = n

    def prepare(self):
        # Negative: the query in the test is kept on the path that skips the branch, and the
        # branch itself queries again and drops the shard: the function's own decision.
        if self.shard is not None and self.shard.size() != self.expected:
            assert self.shard.size() > 0
            self.shard = None

    def report(self):
        return self.shard.size()  # expect: MF001{{'self.shard' keeps its device memory after 'size' in 'Handle.report'}}

