# MF002 at Python sites is opt-in ("mf002_python": true; docs/checks/MF002.md): with the defaults
# the retention below, reported in mf002_retained_member.py where the option is on, is not. The
# other rules still run on the file: the MF001 beside it is reported.
import torch


class Attention:
    def __init__(self, heads):
        self.weight = torch.empty(heads, heads)
        self.manager = None

    def forward(self, x):
        self.last_scores = x @ self.weight  # negative: MF002 is off for Python by default
        return self.last_scores

    def step(self):
        if self.manager is not None:
            self.manager.offload()
            self.manager = None

    def step_and_keep(self):
        if self.manager is not None:
            self.manager.offload()  # expect: MF001{{'self.manager' keeps its device memory after 'offload'}}


class Manager:
    def __init__(self):
        self.tensor = torch.empty(4)

    def offload(self):
        return self.tensor.cpu()
