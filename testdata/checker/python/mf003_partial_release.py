# MF003: a method releases several heavy attributes assigned by another method but keeps one.
# config: {"mf002_python": true}
import torch


class Node:
    def forward(self, x):
        self.inputs = [x.detach()]
        self.output = torch.relu(x)
        self.saved_mask = torch.ones_like(x)  # expect: MF002
        return self.output

    def release(self):
        self.inputs = None  # expect: MF003{{'Node.release' releases 2 members assigned by 'Node.forward' but keeps 'saved_mask'}}
        self.output = None


class CompleteNode:
    def forward(self, x):
        self.inputs = [x.detach()]
        self.output = torch.relu(x)
        self.saved_mask = torch.ones_like(x)
        return self.output

    def release(self):
        self.inputs = None
        self._drop_outputs()

    def _drop_outputs(self):
        self.output = None
        del self.saved_mask
