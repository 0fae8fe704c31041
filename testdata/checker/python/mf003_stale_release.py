# MF003 in Python, a rename's leftover: a method releases a member that nothing assigns, while the
# class assigns one of the same name but for its underscores. The shape of a real fix: a loop's
# teardown kept releasing `epoch_output` after the member became `_epoch_output`, so a whole
# epoch's step outputs stayed alive after the loop.
import torch


class EpochLoop:
    def __init__(self):
        self._epoch_output = None
        self.step_outputs = None

    def reset(self):
        self._epoch_output = [[] for _ in range(2)]

    def advance(self, batch):
        self._epoch_output[0].append(torch.mul(batch, 2))

    def teardown(self):
        self.epoch_output = None  # expect: MF003{{'EpochLoop.teardown' releases 'epoch_output', which nothing assigns, and keeps '_epoch_output'}}


class FixedEpochLoop(EpochLoop):
    def teardown(self):
        self._epoch_output = None


class WithProperty:
    """`self.output = None` goes through the property's setter, which stores `_output`."""

    def __init__(self):
        self._output = None

    @property
    def output(self):
        return self._output

    @output.setter
    def output(self, value):
        self._output = value

    def run(self, x):
        self._output = torch.mul(x, 2)

    def clear(self):
        self.output = None


class SetFromOutside:
    """`results` is stored on the object by another class: not stale."""

    def __init__(self):
        self._results = None

    def run(self, x):
        self._results = torch.mul(x, 2)

    def teardown(self):
        self.results = None


def attach(obj, x):
    obj.results = x


class NothingSimilar:
    """A release of a name nothing assigns, and no member like it: no finding."""

    def __init__(self):
        self.kept = torch.zeros(2)

    def teardown(self):
        self.other = None
