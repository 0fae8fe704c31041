# MF002: a heavy attribute assigned outside constructors (and the methods only they call) and
# released nowhere keeps its last value between calls.
# config: {"mf002_python": true}
import torch


class Attention:
    def __init__(self, heads):
        self.heads = heads
        self.weight = torch.empty(heads, heads)  # the constructor: kept for the object's life
        self._init_state()

    def _init_state(self):
        self.bias_buffer = torch.zeros(self.heads)  # only the constructor calls it

    def forward(self, x):
        self.last_scores = x @ self.weight  # expect: MF002{{'last_scores' is assigned in 'Attention.forward' and released nowhere}}
        self.saved_input = x.detach()  # released in reset(): no finding
        self.step = 1  # not heavy
        return self.last_scores

    def reset(self):
        self.saved_input = None


class Cached:
    def __init__(self):
        self.cache = None

    def lookup(self, key):
        self.cache = {key: torch.ones(1)}  # expect: MF002{{'cache' is assigned in 'Cached.lookup'}}
        return self.cache[key]


class Kept(Cached):
    def lookup(self, key):
        self.cache = torch.ones(1) * key  # memfloor-check: ignore[MF002]
        return self.cache
