# Expressions nested as deep as the source is long: a sum of 1,001 terms is a tree 1,000 levels
# deep, an attribute chain of 500 links one 500 deep. The front end walks them without recursion,
# so they are checked like any other statement (no "cannot parse: RecursionError"), and a call at
# the bottom of one is found.
import torch


class OffloadInterface:
    def group_offload(self, tensor):
        return tensor


class Layer:
    def __init__(self):
        self.manager = None

    def start(self, x):
        self.manager = OffloadInterface()

    def post(self, x):
        if self.manager is not None:
            x = self.manager.group_offload(x)
            self.manager = None
        return x

    # The call is the leftmost leaf of the sum: 999 additions above it.
    def deep_sum_keeps(self, x):
        if self.manager is not None:
            x = (self.manager.group_offload(x)  # expect: MF001{{'self.manager' keeps its device memory after 'group_offload' in 'Layer.deep_sum_keeps'}}
                 + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x
                 + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x
                 + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x
                 + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x
                 + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x
                 + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x
                 + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x
                 + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x
                 + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x
                 + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x
                 + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x
                 + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x
                 + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x
                 + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x
                 + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x
                 + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x
                 + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x
                 + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x
                 + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x
                 + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x
                 + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x
                 + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x
                 + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x
                 + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x
                 + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x
                 + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x
                 + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x
                 + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x
                 + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x
                 + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x
                 + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x
                 + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x
                 + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x
                 + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x
                 + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x
                 + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x
                 + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x
                 + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x
                 + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x
                 + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x
                 + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x
                 + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x
                 + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x
                 + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x
                 + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x
                 + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x
                 + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x
                 + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x
                 + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x
                 + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x)
        return x

    def deep_sum_releases(self, x):
        if self.manager is not None:
            x = (self.manager.group_offload(x)
                 + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x
                 + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x
                 + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x
                 + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x
                 + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x
                 + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x
                 + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x
                 + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x
                 + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x
                 + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x
                 + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x
                 + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x
                 + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x
                 + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x
                 + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x
                 + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x
                 + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x
                 + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x
                 + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x
                 + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x
                 + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x
                 + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x
                 + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x
                 + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x
                 + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x
                 + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x
                 + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x
                 + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x
                 + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x
                 + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x
                 + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x
                 + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x
                 + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x
                 + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x
                 + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x
                 + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x
                 + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x
                 + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x
                 + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x
                 + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x
                 + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x
                 + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x
                 + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x
                 + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x
                 + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x
                 + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x
                 + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x
                 + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x
                 + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x
                 + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x)
            self.manager = None
        return x

    # The call is the innermost link of a chain of 500 attributes.
    def deep_chain_keeps(self, x):
        if self.manager is not None:
            x = (self.manager.group_offload(x)  # expect: MF001
                 .T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T
                 .T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T
                 .T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T
                 .T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T
                 .T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T
                 .T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T
                 .T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T
                 .T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T
                 .T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T
                 .T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T
                 .T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T
                 .T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T
                 .T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T
                 .T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T
                 .T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T
                 .T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T
                 .T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T
                 .T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T
                 .T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T
                 .T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T)
        return x

    def deep_chain_releases(self, x):
        if self.manager is not None:
            x = (self.manager.group_offload(x)
                 .T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T
                 .T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T
                 .T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T
                 .T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T
                 .T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T
                 .T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T
                 .T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T
                 .T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T
                 .T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T
                 .T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T
                 .T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T
                 .T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T
                 .T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T
                 .T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T
                 .T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T
                 .T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T
                 .T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T
                 .T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T
                 .T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T
                 .T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T)
            self.manager = None
        return x

    # Deep, with no site in it: nothing to report.
    def deep_without_sites(self, x):
        y = (x
             + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x
             + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x
             + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x
             + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x
             + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x
             + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x
             + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x
             + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x
             + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x
             + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x
             + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x
             + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x
             + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x
             + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x
             + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x
             + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x
             + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x
             + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x
             + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x
             + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x
             + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x
             + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x
             + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x
             + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x
             + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x
             + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x
             + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x
             + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x
             + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x
             + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x
             + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x
             + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x
             + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x
             + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x
             + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x
             + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x
             + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x
             + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x
             + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x
             + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x
             + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x
             + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x
             + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x
             + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x
             + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x
             + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x
             + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x
             + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x
             + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x
             + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x)
        return (y
                .T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T
                .T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T
                .T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T
                .T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T
                .T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T
                .T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T
                .T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T
                .T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T
                .T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T
                .T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T
                .T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T
                .T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T
                .T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T
                .T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T
                .T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T
                .T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T
                .T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T
                .T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T
                .T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T
                .T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T)
