# Set-up code, stores into an object and the stages of a protocol, as the rules read them. MF004 is
# on here (it is opt-in in Python: docs/checks/MF004.md).
# config: {"mf004_python": true}
import torch


class SamplingTensors:
    """Members set to None as defaults by set-up code, then built before any use."""

    def __init__(self, n):
        self._init_buffers(n)

    def _init_buffers(self, n):
        self.logits = None
        self.sampled = None
        if n:
            self.logits = torch.zeros(n)
            self.sampled = torch.zeros(n)

    def step(self):
        return self.logits.sum()  # set-up's None is no release: no MF004

    def write(self, n, v):
        self.sampled[:n] = v  # a store into the tensor: neither an assignment nor a release
        return self.sampled.sum()


class Stash:
    def __init__(self):
        self.buffers = None

    def allocate(self, n):
        self.buffers = {}  # an empty dict is an assignment before use
        self.buffers["a"] = torch.zeros(n)

    def release(self):
        self.buffers = None

    def stash(self):
        return self.buffers["a"]  # expect: MF004{{'self.buffers' is dereferenced in 'Stash.stash'}}


class Loop:
    """A method that resets members, then runs the code that fills them, is no teardown."""

    def __init__(self):
        self.total_loss = None
        self.extra_losses = None
        self.loss = None

    def forward_pass(self, x):
        self.loss = torch.sum(x)
        self.total_loss = torch.mul(self.loss, 2)
        self.extra_losses = [torch.sum(x)]

    def train_batch(self, x):
        self.total_loss = None
        self.extra_losses = None
        self.forward_pass(x)
        return self.total_loss

    def teardown(self):
        self.total_loss = None  # expect: MF003{{'Loop.teardown' releases 2 members assigned by 'Loop.forward_pass' but keeps 'loss'}}
        self.extra_losses = None


class Expert:
    def __init__(self):
        self.output = None
        self.fc2 = torch.zeros(4)

    def fc2_forward(self, x):
        self.output = x @ self.fc2

    def get_output(self):
        out, self.output = self.output, None
        return out


class FlexDispatcher:
    """Runs the expert's second layer and takes its output in one stage."""

    def __init__(self, expert):
        self.expert = expert

    def combine(self, x):
        self.expert.fc2_forward(x)
        return self.expert.get_output()


class AllToAllDispatcher:
    """Runs the second layer in one stage and takes its output in the next: by design."""

    def __init__(self, expert):
        self.expert = expert

    def combine(self, x):
        self.expert.fc2_forward(x)
        return x

    def combine_postprocess(self, x):
        return x + self.expert.get_output()


class KeepsExpert:
    """Never takes the output: kept until the next call."""

    def __init__(self, expert):
        self.expert = expert

    def combine(self, x):
        self.expert.fc2_forward(x)  # expect: MF001{{'self.expert' keeps its device memory after 'fc2_forward'}}
        return x
